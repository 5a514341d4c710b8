"""A range of two weekdays ("Monday to Sunday", "esmaspäevast pühapäevani", "с
понедельника по воскресенье"), in the week a word names or from today on, as
properties over generated phrasings: every pair of weekdays x anchor x language x
"today" (month and year ends included)."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.schema import ParamSpec

DAYS_ONLY = [
    ParamSpec(name="validFrom", type="date", required=True, description="Start of the date range"),
    ParamSpec(name="validTo", type="date", required=True, description="End of the date range"),
]
EN = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
ET = ["esmaspäeva", "teisipäeva", "kolmapäeva", "neljapäeva", "reede", "laupäeva", "pühapäeva"]
RU_FROM = ["понедельника", "вторника", "среды", "четверга", "пятницы", "субботы", "воскресенья"]
RU_TO = ["понедельник", "вторник", "среду", "четверг", "пятницу", "субботу", "воскресенье"]
ANCHORS = {
    "this": {"en": "this week", "et": "sel nädalal", "ru": "на этой неделе"},
    "next": {"en": "next week", "et": "järgmisel nädalal", "ru": "на следующей неделе"},
    "last": {"en": "last week", "et": "eelmisel nädalal", "ru": "на прошлой неделе"},
    "none": {"en": "", "et": "", "ru": ""},
}
COUNTRIES = CountryNames()


def phrase(lang: str, one: int, two: int, anchor: str, anchor_first: bool) -> str:
    if lang == "en":
        days = f"from {EN[one]} to {EN[two]}"
    elif lang == "et":
        days = f"{ET[one]}st {ET[two]}ni"
    else:
        days = f"с {RU_FROM[one]} по {RU_TO[two]}"
    week = ANCHORS[anchor][lang]
    if not week:
        return (
            f"electricity {days}"
            if lang == "en"
            else f"elektri hind {days}"
            if lang == "et"
            else f"цены {days}"
        )
    return f"{week} {days}" if anchor_first else f"{days} {week}"


@settings(max_examples=60, deadline=None)
@given(
    today=st.one_of(
        st.sampled_from([date(2026, 12, 31), date(2027, 2, 28), date(2026, 11, 30)]),
        st.dates(date(2026, 1, 1), date(2028, 12, 31)),
    ),
    one=st.integers(0, 6),
    two=st.integers(0, 6),
    lang=st.sampled_from(["en", "et", "ru"]),
    anchor=st.sampled_from(list(ANCHORS)),
    anchor_first=st.booleans(),
)
def test_a_weekday_range_is_those_days_of_the_week_named(
    today: date, one: int, two: int, lang: str, anchor: str, anchor_first: bool
) -> None:
    if one == two:
        return
    message = phrase(lang, one, two, anchor, anchor_first)
    found = RuleExtractor(COUNTRIES, today=lambda: today).extract(message, DAYS_ONLY, language=lang)  # type: ignore[arg-type]
    span = (two - one) % 7
    monday = today - timedelta(days=today.weekday())
    if anchor == "none":
        first = today + timedelta(days=(one - today.weekday()) % 7)
    else:
        first = monday + timedelta(days=one + 7 * {"this": 0, "next": 1, "last": -1}[anchor])
    assert found == {
        "validFrom": first.isoformat(),
        "validTo": (first + timedelta(days=span)).isoformat(),
    }, message
