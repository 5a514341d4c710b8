"""Two calendars of one kind of question (public holidays and school breaks) score within
a hair of each other on the same message: the words only one endpoint's texts say
("break", "vaheaeg" in its compounds, "каникулы") choose it, in three languages, while an
action named (a vote on a topic) still decides by its action. "When is …" asks a date,
not a condition; Russian typed in Latin letters is matched in Cyrillic."""

from __future__ import annotations

import pytest

from classifier_svc.action_words import ActionWords
from classifier_svc.rag_aspects import opens_with_condition
from services.language import LanguageDetector, cyrillic_reading
from tests.classifier.layer_support import Scripted
from tests.classifier.test_topic_and_action_rescues import ENDPOINTS, matcher, real

SCHOOL, PUBLIC = "get_school_holidays", "get_national_holidays"


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


BREAKS = {
    "en": ["when is the {s} break for schools this year", "how long is {s} break in 2029"],
    "et": ["{s}vaheaeg järgmine aasta mis kuupäevast algab", "millal {s}vaheaeg algab"],
    "ru": ["когда {s} каникулы у школьников", "{s} каникулы в 2028 когда?"],
}
SEASONS = {
    "en": ["christmas", "spring", "summer", "winter", "autumn"],
    "et": ["jõulu", "kevad", "suve", "talve", "sügis"],
    "ru": ["рождественские", "весенние", "летние", "зимние", "осенние"],
}
HOLIDAYS = {
    "en": ["which public holidays are there in latvia next year", "is 24 february a bank holiday"],
    "et": ["millised riigipühad on lätis järgmisel aastal", "kas 24. veebruar on riigipüha"],
    "ru": ["какие государственные праздники в латвии в следующем году", "24 февраля праздничный выходной?"],
}


@pytest.mark.parametrize(
    ("lang", "message"),
    [(lang, f.format(s=s)) for lang in BREAKS for f in BREAKS[lang] for s in SEASONS[lang]],
)
async def test_a_break_goes_to_the_school_calendar_from_a_near_tie(
    detector: LanguageDetector, lang: str, message: str
) -> None:
    # The public-holidays prototype leads by a hair, both clearly accepted.
    search = Scripted({"": [real(PUBLIC, 0.905, 2), real(SCHOOL, 0.902, 2)]})
    decision = await matcher(search, detector).match(message, lang)  # type: ignore[arg-type]
    assert decision is not None and [c.name for c in decision.endpoints] == [SCHOOL], message


@pytest.mark.parametrize(("lang", "message"), [(lang, m) for lang, ms in HOLIDAYS.items() for m in ms])
async def test_a_public_holiday_question_keeps_its_calendar(
    detector: LanguageDetector, lang: str, message: str
) -> None:
    for first, second in ((PUBLIC, SCHOOL), (SCHOOL, PUBLIC)):
        search = Scripted({"": [real(first, 0.905, 2), real(second, 0.902, 2)]})
        decision = await matcher(search, detector).match(message, lang)  # type: ignore[arg-type]
        assert decision is not None, message
        if first == PUBLIC:
            assert [c.name for c in decision.endpoints] == [PUBLIC], message


def test_the_words_of_both_or_of_neither_choose_nothing(detector: LanguageDetector) -> None:
    words = ActionWords(detector)
    names, endpoints = [PUBLIC, SCHOOL], [ENDPOINTS[PUBLIC], ENDPOINTS[SCHOOL]]
    assert words.choose_by_own_words("when are the holidays", names, endpoints) is None
    assert words.choose_by_own_words("millal on pühad", names, endpoints) is None  # the best's own


@pytest.mark.parametrize(
    "message",
    [
        "when is the christmas break",
        "when's the next one",
        "when are the school holidays next year",
        "kui kaua kestab suvevaheaeg",
        "когда у школьников каникулы?",
        "and when does the spring break start",
    ],
)
def test_when_asking_a_date_is_no_condition(message: str) -> None:
    assert not opens_with_condition(message)


@pytest.mark.parametrize(
    "message",
    [
        "when a holiday falls on a saturday, do we get monday off?",
        "if a holiday is on a sunday is monday off",
        "kui riigipüha on laupäeval, kas esmaspäev on vaba?",
        "когда праздник выпадает на субботу, понедельник выходной?",
    ],
)
def test_a_condition_stays_one(message: str) -> None:
    assert opens_with_condition(message)


@pytest.mark.parametrize(
    ("latin", "word"),
    [("kogda zimnie kanikuly u shkolnikov", "каникулы"), ("kakie prazdniki v latvii", "праздники")],
)
def test_latin_russian_reads_in_cyrillic(latin: str, word: str) -> None:
    assert word in cyrillic_reading(latin)


@pytest.mark.parametrize("head", ["lihavõtte", "jõulu", "ülestõusmis", "neli", "riigi"])
def test_a_holiday_compound_is_the_public_calendars_word(detector: LanguageDetector, head: str) -> None:
    # "lihavõttepühad" shares its head "pühad" with "riigipühad", not its last six letters:
    # the public calendar's texts say it, the school calendar's do not.
    words = ActionWords(detector)
    compound = f"{head}pühad"
    assert words._says(compound, PUBLIC, ENDPOINTS[PUBLIC]), compound
    assert not words._says(compound, SCHOOL, ENDPOINTS[SCHOOL]), compound
