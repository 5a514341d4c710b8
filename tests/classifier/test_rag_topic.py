"""A question that names a knowledge page's topic (its title or one of the other names
its source gives as `keywords`) reaches that page: the demo knowledge base's own pages,
read as the indexer reads them, every other name of every page in en/et/ru."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier_svc.passages import Passage
from classifier_svc.rag_gate import RagGate
from classifier_svc.rag_lexical import WordMatcher, with_topic_evidence
from indexer_svc.knowledge.sources import SourceDocument, read_source
from services.language import LanguageDetector

KNOWLEDGE = Path(__file__).resolve().parents[2] / "devtools" / "demo_apis" / "knowledge"
GATE = RagGate(min_cosine=0.82, min_term_coverage=0.34, dense_only=0.9)
MATCHER = WordMatcher()


def _documents() -> list[SourceDocument]:
    detector = LanguageDetector()
    return [read_source(path, detector) for path in sorted(KNOWLEDGE.glob("*.md"))]


DOCUMENTS = _documents()


def _passages(lang: str, cosine: float = 0.85, matched: int = 1, of: int = 6) -> list[Passage]:
    """A passage of every page in `lang`, all alike close to the question."""
    return [
        Passage(
            document_id=f"{d.slug}#0",
            title=d.title,
            section=d.sections[0].heading,
            text=d.sections[0].text,
            url=d.url,
            language=d.language,
            dense_cosine=cosine,
            hybrid_rank=rank,
            matched_terms=matched,
            query_terms=of,
            keywords=d.keywords,
        )
        for rank, d in enumerate(DOCUMENTS, start=1)
        if d.language == lang
    ]


OTHER_NAMES = [(d.slug, d.language, name) for d in DOCUMENTS for name in d.keywords if len(name.split()) > 1]


def test_the_pages_have_other_names_in_every_language() -> None:
    langs = {d.language for d in DOCUMENTS if d.keywords}
    assert langs == {"en", "et", "ru"}


@pytest.mark.parametrize(("slug", "lang", "name"), OTHER_NAMES)
def test_a_question_naming_a_page_by_another_name_ranks_that_page_first(
    slug: str, lang: str, name: str
) -> None:
    # A third of the question's words in the passage: under the usual share, enough beside a topic word.
    passages = with_topic_evidence(name, _passages(lang, matched=2, of=6), MATCHER)
    chosen = GATE.relevant(passages)
    assert chosen, name
    assert chosen[0].document_id == f"{slug}#0", (name, [(p.document_id, p.topic_terms) for p in passages])


@pytest.mark.parametrize(
    ("question", "lang", "page", "matched", "of"),
    [
        ("how long is a driving licence valid in estonia", "en", "driving-licence.en", 3, 5),
        ("kolisin uude kohta, mis ajaga pean elukoha registreerima?", "et", "residence.et", 2, 7),
        (
            "tere, ma üürin korterit ja tahan sinna sisse kirjutada, kas omanik peab midagi tegema",
            "et",
            "residence.et",
            2,
            12,
        ),
        (
            "регистрация рождения ребенка — обязательно идти в загс или можно через интернет?",
            "ru",
            "birth-registration.ru",
            3,
            9,
        ),
        ("через сколько после переезда надо прописаться", "ru", "residence.ru", 2, 6),
    ],
)
def test_a_chatty_question_naming_the_topic_passes_the_gate_on_its_page(
    question: str, lang: str, page: str, matched: int, of: int
) -> None:
    # Few of its words are in any passage (under the usual share, as the search found them):
    # its topic words decide, and its page comes first.
    passages = with_topic_evidence(question, _passages(lang, matched=matched, of=of), MATCHER)
    chosen = GATE.relevant(passages)
    assert chosen and chosen[0].document_id == f"{page}#0"


@pytest.mark.parametrize(
    ("question", "lang", "matched", "of"),
    [
        ("tere, ma üürin korterit ja tahan end sinna sisse kirjutada, mis ma tegema pean", "et", 1, 9),
        ("через сколько после переезда надо прописаться", "ru", 2, 6),
    ],
)
def test_the_usual_gate_leaves_topic_words_out(question: str, lang: str, matched: int, of: int) -> None:
    # A rule that takes a question from the lookups (a yes/no on a condition, an endpoint
    # outvoted by a page) asks the usual gate: a topic word alone is no reason.
    passages = with_topic_evidence(question, _passages(lang, matched=matched, of=of), MATCHER)
    assert GATE.relevant(passages)
    assert not GATE.relevant(passages, by_topic=False)


def test_a_word_most_pages_name_is_no_topic_word() -> None:
    # "Estonia" is in the titles of the passport and the holidays page (and others by stem):
    # with a word held by more than a third of the pages it names none of them.
    passages = [
        Passage(f"p{i}#0", "Registering in Estonia", "", "Text.", "", "en", 0.85, i, keywords=("estonia",))
        for i in range(6)
    ]
    found = with_topic_evidence("estonia", passages, MATCHER)
    assert {p.topic_terms for p in found} == {0}
    assert not GATE.relevant(found)


def test_no_topic_word_leaves_the_gate_as_it_was() -> None:
    passages = with_topic_evidence("who won the world cup", _passages("en", matched=0), MATCHER)
    assert {p.topic_terms for p in passages} == {0}
    assert not GATE.relevant(passages)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(sorted({w for d in DOCUMENTS for w in d.title.split()})), max_size=8))
def test_topic_words_are_the_questions_own_distinct_words(words: list[str]) -> None:
    question = " ".join(words)
    for lang in ("en", "et", "ru"):
        for passage in with_topic_evidence(question, _passages(lang), MATCHER):
            assert 0 <= passage.topic_terms <= len(MATCHER.words(question))


def test_a_huge_question_is_read_promptly() -> None:
    question = "licence " * 12_500 + "x" * 1_000
    found = with_topic_evidence(question, _passages("en"), MATCHER)
    assert max(p.topic_terms for p in found) >= 1
