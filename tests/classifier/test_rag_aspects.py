"""Knowledge answers by aspect, generated from the demo pages' structure
(tests/data/knowledge_aspects.json labels which sentence of each page says which aspect):
a question per aspect of every page and one per pair of aspects, in three languages, in
tidy and sloppy spellings; an aspect a page does not say is said to be unsaid; yes/no
questions answered yes or no first when the page settles them."""

from __future__ import annotations

import dataclasses
import itertools
import json
import unicodedata
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier_svc.numerals import with_digits
from classifier_svc.passages import Passage, sources_of
from classifier_svc.rag_aspects import Aspect, aspects_of, fold, split_question
from classifier_svc.rag_extractive import ExtractiveAnswer, ExtractiveAnswerer
from classifier_svc.rag_gate import RagGate
from classifier_svc.rag_lexical import WordMatcher, with_lexical_evidence
from indexer_svc.knowledge.chunking import chunk_document
from indexer_svc.knowledge.sources import read_source
from services.language import Lang, LanguageDetector

REPO = Path(__file__).resolve().parents[2]
KNOWLEDGE = REPO / "devtools" / "demo_apis" / "knowledge"
LABELS = json.loads((REPO / "tests" / "data" / "knowledge_aspects.json").read_text(encoding="utf-8"))
LANGS: tuple[Lang, ...] = ("en", "et", "ru")
NOT_SAID = {"en": "does not say", "et": "ei ole", "ru": "не указан"}


@cache
def page(topic: str, lang: str) -> tuple[Passage, ...]:
    """The page's passages as the indexer cuts them, as the classifier reads them."""
    document = read_source(KNOWLEDGE / f"{topic}.{lang}.md", LanguageDetector())
    return tuple(
        Passage(c.document_id, c.title, c.section, c.text, c.source_url, c.language, 0.9, rank)
        for rank, c in enumerate(chunk_document(document), 1)
    )


ANSWERER = ExtractiveAnswerer()
MATCHER = WordMatcher()


def ask(question: str, topic: str, lang: Lang) -> ExtractiveAnswer:
    return ANSWERER.answer(question, list(page(topic, lang)), lang)


def questions(aspect: str, lang: str, topic: str) -> list[str]:
    t = LABELS["pages"][topic]["topic"][lang]
    return [template.format(t=t) for template in LABELS["templates"][lang][aspect]]


COVERED = [
    (topic, aspect, lang, question)
    for topic, labels in LABELS["pages"].items()
    for aspect in labels["covered"]
    for lang in LANGS
    for question in questions(aspect, lang, topic)
]
UNCOVERED = [
    (topic, aspect, lang, question)
    for topic, labels in LABELS["pages"].items()
    for aspect in labels.get("uncovered", ())
    for lang in LANGS
    for question in questions(aspect, lang, topic)
]
PARTIAL_COST = [
    (topic, lang, question)
    for topic, labels in LABELS["pages"].items()
    if "cost_partial" in labels
    for lang in LANGS
    for question in questions("cost", lang, topic)
]
PAIRS = [
    (topic, first, second, lang)
    for topic, labels in LABELS["pages"].items()
    for first, second in itertools.combinations([*labels["covered"], *labels.get("uncovered", ())], 2)
    for lang in LANGS
]


def said(answer: ExtractiveAnswer, words: str) -> bool:
    """The words are in the answer, as the page wrote them or with its counts in digits
    ("ten working days" is answered "10 working days": classifier_svc/numerals.py)."""
    text = fold(answer.text)
    return any(fold(w) in text for w in {words, *(with_digits(words, lang) for lang in LANGS)})


@pytest.mark.parametrize(("topic", "aspect", "lang", "question"), COVERED)
def test_each_aspect_of_every_page_is_answered_from_the_sentence_that_says_it(
    topic: str, aspect: str, lang: Lang, question: str
) -> None:
    answer = ask(question, topic, lang)
    assert Aspect(aspect) in aspects_of(question)[0], question
    assert said(answer, LABELS["pages"][topic]["covered"][aspect][lang]), (question, answer.text)
    assert Aspect(aspect) not in answer.uncovered, (question, answer.text)
    (source,) = sources_of(answer.used)
    assert source.url == page(topic, lang)[0].url


@pytest.mark.parametrize(("topic", "aspect", "lang", "question"), UNCOVERED)
def test_an_aspect_the_page_does_not_say_is_said_to_be_unsaid_with_the_source(
    topic: str, aspect: str, lang: Lang, question: str
) -> None:
    answer = ask(question, topic, lang)
    assert Aspect(aspect) in answer.uncovered, (question, answer.text)
    assert NOT_SAID[lang] in answer.text.lower(), answer.text
    assert page(topic, lang)[0].url in answer.text


@pytest.mark.parametrize(("topic", "lang", "question"), PARTIAL_COST)
def test_a_fee_without_an_amount_is_quoted_and_the_amount_said_to_be_missing(
    topic: str, lang: Lang, question: str
) -> None:
    answer = ask(question, topic, lang)
    assert said(answer, LABELS["pages"][topic]["cost_partial"][lang]), (question, answer.text)
    assert Aspect.COST in answer.uncovered
    assert NOT_SAID[lang] in answer.text.lower() or "не указана" in answer.text.lower()


@pytest.mark.parametrize(("topic", "first", "second", "lang"), PAIRS)
def test_two_aspects_in_one_question_are_both_answered(
    topic: str, first: str, second: str, lang: Lang
) -> None:
    labels = LABELS["pages"][topic]
    question = f"{questions(first, lang, topic)[0]} {questions(second, lang, topic)[0]}"
    answer = ask(question, topic, lang)
    for aspect in (first, second):
        if aspect in labels["covered"]:
            assert said(answer, labels["covered"][aspect][lang]), (question, answer.text)
        else:
            assert Aspect(aspect) in answer.uncovered, (question, answer.text)


# What a page's sentences ask a citizen to bring, section by section (the driving
# licence's health certificate has its own section; its photo and fee are in "How to
# apply"), and a sentence that only says the topic is needed ("a passport is needed to
# travel outside the EU"), which is no list of documents.
DOCUMENTS_ACROSS_SECTIONS = {
    "en": ("health certificate", "photo", "fee"),
    "et": ("tervisetõend", "foto", "riigilõiv"),
    "ru": ("справк", "фотографи", "госпошлин"),
}
NEED_ONLY = {
    "en": "passport is needed to travel",
    "et": "pass on vajalik",
    "ru": "паспорт нужен",
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("template", range(3))
def test_a_documents_question_lists_what_to_bring_from_every_section(lang: Lang, template: int) -> None:
    question = questions("documents", lang, "driving-licence")[template]
    answer = ask(question, "driving-licence", lang)
    for words in DOCUMENTS_ACROSS_SECTIONS[lang]:
        assert said(answer, words), (question, answer.text)
    passport = ask(questions("documents", lang, "passport")[template], "passport", lang)
    assert not said(passport, NEED_ONLY[lang]), passport.text


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("template", (3, 4))
def test_asking_for_it_sooner_gets_the_processing_time_and_its_urgent_option(
    lang: Lang, template: int
) -> None:
    question = questions("time", lang, "passport")[template]
    answer = ask(question, "passport", lang)
    assert said(answer, LABELS["pages"]["passport"]["covered"]["time"][lang]), (question, answer.text)
    assert said(answer, {"en": "urgent", "et": "kiirmenetlus", "ru": "срочн"}[lang]), (question, answer.text)


@pytest.mark.parametrize(
    ("question", "topic", "lang", "verdict"),
    [
        ("can it be done faster? im flying in 2 weeks", "passport", "en", "yes"),
        ("Kas passi saab kiiremini?", "passport", "et", "yes"),
        ("паспорт можно побыстрее?", "passport", "ru", "yes"),
        # The ID-card page names no faster option: no verdict either way.
        ("Can my ID card be done faster?", "id-card", "en", None),
        ("Kas ID-kaarti saab kiiremini?", "id-card", "et", None),
        ("ID-карту можно побыстрее?", "id-card", "ru", None),
    ],
)
def test_a_yes_no_question_is_settled_by_the_sentence_that_says_its_cue_word_back(
    question: str, topic: str, lang: Lang, verdict: str | None
) -> None:
    assert ask(question, topic, lang).verdict == verdict


def sloppy(text: str, lower: bool, strip: bool, drop_punctuation: bool) -> str:
    if strip:  # no diacritics, as typed on a keyboard without them
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    if lower:
        text = text.lower()
    if drop_punctuation:
        text = text.replace("?", "").replace(",", "").replace(":", "")
    return text


@settings(max_examples=150, deadline=None)
@given(case=st.sampled_from(COVERED), lower=st.booleans(), strip=st.booleans(), drop=st.booleans())
def test_sloppy_spellings_get_the_same_aspect_answer(
    case: tuple[str, str, Lang, str], lower: bool, strip: bool, drop: bool
) -> None:
    topic, aspect, lang, question = case
    answer = ask(sloppy(question, lower, strip, drop), topic, lang)
    assert said(answer, LABELS["pages"][topic]["covered"][aspect][lang]), answer.text


@pytest.mark.parametrize(
    ("question", "lang", "verdict"),
    [
        ("Can I apply for my first passport online?", "en", "no"),
        ("Kas esimest passi saab internetis taotleda?", "et", "no"),
        ("Можно ли первый паспорт оформить онлайн?", "ru", "no"),
        ("Can I apply for a passport online?", "en", "yes"),
        ("Kas passi saab taotleda iseteeninduses?", "et", "yes"),
    ],
)
def test_online_questions_answer_yes_or_no_from_the_channels_and_their_exceptions(
    question: str, lang: Lang, verdict: str
) -> None:
    answer = ask(question, "passport", lang)
    assert answer.verdict == verdict, answer.text
    assert answer.text.split()[0].rstrip(".").lower() in {"yes", "no", "jah", "ei", "да", "нет"}


@pytest.mark.parametrize(
    ("question", "topic", "lang", "verdict"),
    [
        # A negated statement answers no, a plain one yes; weekdays meet weekends/working days.
        ("If a public holiday falls on a Sunday, is the Monday a day off?", "public-holidays", "en", "no"),
        ("Kui riigipüha on pühapäeval, kas esmaspäev on vaba?", "public-holidays", "et", "no"),
        ("Если праздник выпал на воскресенье, понедельник выходной?", "public-holidays", "ru", "no"),
        ("Is the working day before Independence Day shorter?", "public-holidays", "en", "yes"),
        ("Kas iseseisvuspäevale eelneval tööpäeval on tööpäev lühem?", "public-holidays", "et", "yes"),
        ("Рабочий день перед Днём независимости короче?", "public-holidays", "ru", "yes"),
        # A negation inside a condition ("if you are not the owner, …") is not the answer's.
        ("Do I need the owner's consent if I rent the flat?", "residence", "en", "yes"),
        # "Automatically" answers "do I have to apply separately?".
        (
            "Do we have to apply for child allowance separately after the birth?",
            "birth-registration",
            "en",
            "no",
        ),
        ("Do I have to bring a paper health certificate from the doctor?", "driving-licence", "en", "no"),
        # Whether X is needed, with an alternative the page permits instead ("Inside the EU
        # you can travel with your ID card"): not needed, as citizens read it.
        ("Is a passport needed for Latvia or is the ID card enough?", "passport", "en", "no"),
    ],
)
def test_yes_no_questions_the_page_settles_start_with_the_answer(
    question: str, topic: str, lang: Lang, verdict: str
) -> None:
    answer = ask(question, topic, lang)
    assert answer.verdict == verdict, answer.text


@pytest.mark.parametrize(
    ("question", "topic", "lang"),
    [
        # A question the page has no words for is not settled.
        ("Do I need a passport to visit Norway?", "passport", "en"),
    ],
)
def test_yes_no_questions_the_page_does_not_settle_get_no_verdict(
    question: str, topic: str, lang: Lang
) -> None:
    answer = ask(question, topic, lang)
    assert answer.verdict is None, answer.text


@pytest.mark.parametrize(
    ("question", "topic", "lang"),
    [
        ("Can I exchange my Ukrainian licence for an Estonian one?", "driving-licence", "en"),
        ("Kas Ukraina juhiloa saab Eesti oma vastu vahetada?", "driving-licence", "et"),
        ("Можно ли обменять украинские права на эстонские?", "driving-licence", "ru"),
    ],
)
def test_a_question_the_page_does_not_answer_quotes_nothing_and_names_what_it_covers(
    question: str, topic: str, lang: Lang
) -> None:
    answer = ask(question, topic, lang)
    passages = page(topic, lang)
    assert not any(sentence in answer.text for p in passages for sentence in p.text.split(". ")[:1])
    assert all(p.section in answer.text for p in passages)
    assert passages[0].url in answer.text


def test_a_page_only_in_another_language_is_quoted_and_said_to_be():
    answer = ANSWERER.answer("Сколько действует паспорт?", list(page("passport", "en")), "ru")
    assert "valid for 10 years" in answer.text
    assert answer.text.startswith("Ответ есть только на странице на другом языке")
    assert "Источник" in answer.text


def test_two_topics_in_one_question_are_answered_each_from_its_own_page() -> None:
    question = "How long does it take to get a passport? How long is an ID card valid?"
    parts = split_question(question)
    answer = ANSWERER.answer(
        question,
        [*page("passport", "en"), *page("id-card", "en")],
        "en",
        part_passages=[list(page("passport", "en")), list(page("id-card", "en"))],
    )
    assert [p.aspects for p in parts] == [(Aspect.TIME,), (Aspect.VALIDITY,)]
    assert "issued within 30 days" in answer.text and "valid for 5 years" in answer.text
    assert {s.title for s in sources_of(answer.used)} == {
        "Applying for an Estonian passport",
        "Renewing an ID card",
    }


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("how long does it take and how much does it cost", [("time",), ("cost",)]),
        ("kui kaua see aega võtab ja palju see maksab", [("time",), ("cost",)]),
        ("сколько ждать и сколько стоит", [("time",), ("cost",)]),
        ("can i renew it online or do i have to go to an office", [("online",)]),
        ("I need my first passport. Can I apply online?", [("online",)]),
    ],
)
def test_a_question_splits_into_the_clauses_that_ask_something(
    question: str, parts: list[tuple[str, ...]]
) -> None:
    assert [tuple(a.value for a in p.aspects) for p in split_question(question)] == parts


PAGE_WORDS = sorted(
    {
        w
        for topic in LABELS["pages"]
        for lang in LANGS
        for p in page(topic, lang)
        for w in MATCHER.words(p.text)
        if len(w) >= 6
    }
)


@settings(max_examples=200, deadline=None)
@given(word=st.sampled_from(PAGE_WORDS), position=st.integers(min_value=1), strip=st.booleans())
def test_a_page_word_typed_with_one_slip_or_without_diacritics_still_matches(
    word: str, position: int, strip: bool
) -> None:
    cut = 1 + position % (len(word) - 1)  # never the first letter
    typed = fold(word) if strip else word[:cut] + word[cut + 1 :]
    assert MATCHER.match(typed, {word}), (typed, word)


def test_typed_questions_keep_their_lexical_evidence_for_the_gate() -> None:
    gate = RagGate(min_cosine=0.82, min_term_coverage=0.34, dense_only=0.9)
    passages = [
        dataclasses.replace(p, dense_cosine=0.85, matched_terms=0, query_terms=3)
        for p in page("unemployment", "et")
    ]
    assert not gate.relevant(passages)
    counted = with_lexical_evidence("kui suur on tootutoetus paevas", passages, MATCHER)
    assert gate.relevant(counted)[0].section == "Toetused"


@pytest.mark.parametrize(
    ("question", "yes_no"),
    [
        ("is the working day before christmas eve shorter?", True),
        ("kas pass kehtib kümme aastat", True),
        ("перед сочельником рабочий день короче?", True),
        ("нужен ли паспорт?", True),
        ("deadline to register a birth?", False),
        ("ID-kaardi hind?", False),
        ("сколько ждать паспорт?", False),
    ],
)
def test_yes_no_questions_are_told_from_questions_for_a_fact(question: str, yes_no: bool) -> None:
    assert [p.yes_no for p in split_question(question)] == [yes_no]


@pytest.mark.parametrize(
    "question",
    [
        "after the birth is registered do we have to apply for child allowance separately?",
        "pärast sünni registreerimist kas lapsetoetust peab eraldi taotlema?",
        "после регистрации рождения нужно отдельно подавать на пособие?",
    ],
)
def test_a_yes_no_question_after_a_leading_phrase_is_still_one(question: str) -> None:
    assert [p.yes_no for p in split_question(question)] == [True]


def test_a_wall_of_clauses_is_answered_in_a_few_distinct_parts() -> None:
    """Each part reads its page again: a clause said twice is one part, and a pasted wall
    of questions is cut to MAX_QUESTION_PARTS (the linear cost the e2e long-message test
    counts)."""
    from classifier_svc.rag_aspects import MAX_QUESTION_PARTS, split_question

    repeated = split_question("How long does it take? " * 200)
    assert len(repeated) == 1
    distinct = split_question(" ".join(f"How much does form {n} cost?" for n in range(50)))
    assert len(distinct) == MAX_QUESTION_PARTS
    assert distinct[0].text.startswith("How much does form 0 cost")
    two = split_question("How long does it take and how much does it cost?")
    assert len(two) == 2


def test_a_documents_sentence_with_an_endless_word_costs_linear_work() -> None:
    """One crafted word must not cost quadratic time in the documents check: over 100,000
    letters a backtracking pattern takes ~10^10 steps (the suite's timeout fails it)."""
    from classifier_svc.rag_aspects import _DOCUMENT_HEADS

    assert _DOCUMENT_HEADS.search("tervisetoend") is not None
    assert _DOCUMENT_HEADS.search("toend") is None  # a compound's head, not the bare word
    assert _DOCUMENT_HEADS.search("a" * 100_000) is None  # quadratic: ~10^10 steps, never returns


# --- a statement of the situation before the question ---------------------------------
# Situations built from a small grammar (a document expiring or expired at some time),
# followed by every page's question of an aspect other than validity: what is asked is
# the question's aspect, not the situation's.
SITUATIONS: dict[Lang, list[str]] = {
    "en": [
        f"my {{t}} {verb} {when}" for verb in ("expires", "runs out") for when in ("next month", "in january")
    ],
    "et": [
        f"mu {{t}} {verb} {when}"
        for verb in ("aegub", "ei kehti enam")
        for when in ("järgmisel kuul", "jaanuaris")
    ],
    "ru": [
        f"{{t}} {verb} {when}"
        for verb in ("истекает", "перестаёт действовать")
        for when in ("в следующем месяце", "в январе")
    ],
}
SITUATED = [
    (topic, aspect, lang, situation.format(t=LABELS["pages"][topic]["topic"][lang]), question)
    for topic in ("id-card", "passport", "driving-licence")
    for aspect in ("how", "time", "documents", "collect")
    if aspect in LABELS["pages"][topic]["covered"]
    for lang in LANGS
    for situation in SITUATIONS[lang][:: 3 if aspect == "how" else 2]
    for question in questions(aspect, lang, topic)[:1]
]


@pytest.mark.parametrize(("topic", "aspect", "lang", "situation", "question"), SITUATED)
def test_a_statement_of_the_situation_before_a_question_does_not_change_what_is_asked(
    topic: str, aspect: str, lang: Lang, situation: str, question: str
) -> None:
    (part,) = split_question(f"{situation}, {question}")
    assert part.aspects[0] is Aspect(aspect), part
    assert Aspect.VALIDITY not in part.aspects, part
    answer = ask(f"{situation}, {question}", topic, lang)
    assert said(answer, LABELS["pages"][topic]["covered"][aspect][lang]), answer.text


LOST_SITUATIONS: dict[Lang, list[str]] = {
    "en": ["lost my {t} yesterday, what now?", "my {t} was stolen, what do i do", "i lost my {t}"],
    "et": ["kaotasin eile oma {t}, mis nüüd?", "mu {t} varastati, mida teha", "{t} on kadunud"],
    "ru": ["потерял {t}, что теперь делать", "у меня украли {t}, что делать?", "{t} утерян"],
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("topic", ["id-card", "passport", "driving-licence"])
@pytest.mark.parametrize("form", range(3))
def test_a_lost_document_is_answered_with_how_to_apply_for_a_new_one(
    lang: Lang, topic: str, form: int
) -> None:
    question = LOST_SITUATIONS[lang][form].format(t=LABELS["pages"][topic]["topic"][lang])
    (part,) = split_question(question)
    assert Aspect.LOST in part.aspects and Aspect.HOW in part.aspects, part
    answer = ask(question, topic, lang)
    assert said(answer, LABELS["pages"][topic]["covered"]["how"][lang]), answer.text


# --- a condition before a yes/no question ---------------------------------------------
CONDITIONS: dict[Lang, tuple[list[str], list[str]]] = {
    "en": (
        ["if a holiday falls on a sunday", "when my card expires"],
        ["is monday off?", "can i still use it?"],
    ),
    "et": (
        ["kui püha on pühapäeval", "kui kaart aegub"],
        ["kas esmaspäev on vaba?", "kas saan seda veel kasutada?"],
    ),
    "ru": (
        ["если праздник выпал на воскресенье", "когда карта истечёт"],
        ["понедельник выходной?", "могу я её ещё использовать?"],
    ),
}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("conjunction", ["", "and "])
def test_a_condition_before_a_yes_no_question_is_part_of_that_one_question(
    lang: Lang, conjunction: str
) -> None:
    conditions, asked = CONDITIONS[lang]
    lead = {"en": conjunction, "et": "ja " if conjunction else "", "ru": "и " if conjunction else ""}[lang]
    for condition, question in zip(conditions, asked, strict=True):
        parts = split_question(f"{lead}{condition}, {question}")
        assert len(parts) == 1 and parts[0].yes_no, parts


# --- a yes/no question the page answers with a negative statement ---------------------
# The page's negative statement is found by the question's words, whatever aspect its
# cue words suggest: "log in to e-services" sounds like "online", "подписывать документы"
# like "documents". Openings x the page's negated action, three languages.
NEGATED_ASKS: dict[Lang, tuple[list[str], list[str]]] = {
    "en": (
        ["can i still", "is it possible to", "my card expired, can i"],
        ["sign digitally with an expired card", "log in to e-services with an expired card"],
    ),
    "et": (
        ["kas ma saan veel", "kas saab", "kaart aegus, kas ma saan"],
        ["aegunud kaardiga digiallkirja anda", "aegunud kaardiga e-teenustesse siseneda"],
    ),
    "ru": (
        ["могу я ещё", "можно ли", "карта просрочена, могу я"],
        ["ставить цифровую подпись просроченной картой", "входить в э-услуги с просроченной картой"],
    ),
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_yes_no_question_the_page_denies_is_answered_no_with_the_denying_sentence(lang: Lang) -> None:
    openings, actions = NEGATED_ASKS[lang]
    for opening, action in itertools.product(openings, actions):
        question = f"{opening} {action}?"
        answer = ask(question, "id-card", lang)
        assert answer.verdict == "no", (question, answer.text)
        assert said(answer, LABELS["pages"]["id-card"]["denied"][lang]), (question, answer.text)
