"""A short message after a list of votes that picks some of them — by a word of their
titles, or by how they ended — is a question about the rows shown (answered from the
stored response), in three languages; one naming nothing of them stays a new intent."""

from __future__ import annotations

from datetime import date

import pytest

from devtools.demo_apis.votings import recent_votings
from loop_svc.cache import LastCallContext
from loop_svc.extraction import RuleExtractor
from loop_svc.follow_up import FollowUpKind, RuleFollowUpDetector
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.result_sketch import sketch_of

VOTINGS = EndpointSpec(
    name="get_parliament_votings",
    params=[
        ParamSpec(
            name="limit",
            type="integer",
            description="How many of the most recent votings to return (1-100, default 10)",
        )
    ],
)
RECORD = recent_votings(10)
SHAPES = RuleShapeReader(lambda: date(2026, 12, 4))


def _detect(extractor: RuleExtractor, message: str, language: str) -> FollowUpKind:
    context = LastCallContext(
        api_name=VOTINGS.name, endpoint=VOTINGS, collected_params={}, sketch=sketch_of(RECORD)
    )
    detector = RuleFollowUpDetector(extractor, SHAPES)
    return detector.detect(message, [context], language).kind  # type: ignore[arg-type]


def _title_words() -> list[tuple[str, str]]:
    """(language, a distinguishing word of one title): each title's longest word, in the
    Estonian and the English title."""
    out = []
    for voting in RECORD:
        for language, key in (("et", "title"), ("en", "titleEn")):
            word = max((w for w in str(voting[key]).split() if w.isalpha()), key=len)
            out.append((language, word))
    return out


FORMS = {
    "en": ["and the {w}?", "what about {w}", "the {w} vote please"],
    "et": ["aga {w}?", "ja {w}", "{w} oma?"],
}


@pytest.mark.parametrize(("language", "word"), _title_words())
@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize("lower", [True, False])
def test_a_word_of_some_titles_asks_about_the_rows(
    extractor: RuleExtractor, language: str, word: str, form: int, lower: bool
) -> None:
    text = FORMS[language][form].format(w=word.lower() if lower else word)
    assert _detect(extractor, text, language) is FollowUpKind.RESPONSE_QUESTION


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "only the ones that failed"),
        ("en", "just those that passed"),
        ("en", "which were rejected"),
        ("et", "ainult need mis läbi ei läinud"),
        ("et", "ainult need mis labi ei lainud"),
        ("et", "need mis kukkusid läbi"),
        ("et", "mis võeti vastu"),
        ("ru", "только те что не приняли"),
        ("ru", "какие провалились"),
        ("ru", "а отклонили какие?"),
    ],
)
def test_how_a_vote_ended_asks_about_the_rows(extractor: RuleExtractor, language: str, message: str) -> None:
    assert _detect(extractor, message, language) is FollowUpKind.RESPONSE_QUESTION


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "what is the vehicle tax for 123ABC"),
        ("et", "millised on eesti riigipühad"),
        ("ru", "сколько стоит электричество завтра"),
    ],
)
def test_a_question_naming_nothing_of_them_is_a_new_intent(
    extractor: RuleExtractor, language: str, message: str
) -> None:
    assert _detect(extractor, message, language) is FollowUpKind.NEW_INTENT
