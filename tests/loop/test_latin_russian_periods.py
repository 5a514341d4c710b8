"""Russian days and hours typed in Latin letters ("zavtra utrom", "segodnya vecherom") name
the period their Cyrillic spelling names, and "на выходных" (at the weekend, the
prepositional) is one weekend, while "выпадает на выходные" (onto, the accusative) is any."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import cyrtranslit
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.schema import ParamSpec

ZONE = ZoneInfo("Europe/Tallinn")
PERIOD = [
    ParamSpec(name="start", type="datetime", required=True, description="Start of the period in ISO 8601"),
    ParamSpec(name="end", type="datetime", required=True, description="End of the period in ISO 8601"),
]
DAYS = [
    "сегодня",
    "завтра",
    "вчера",
    "послезавтра",
    "позавчера",
    "в субботу",
    "в пятницу",
    "в эти выходные",
    "",
]
PARTS = ["утром", "вечером", "ночью", "днем", "с 8 до 12", ""]
LEADS = ["цены", "сколько стоит электричество", "какая цена", "самый дешевый час", ""]


def _extractor(moment: datetime) -> RuleExtractor:
    return RuleExtractor(CountryNames(), zone=ZONE, now=lambda: moment.astimezone(UTC))


@settings(max_examples=60, deadline=None)
@given(
    day=st.dates(date(2025, 1, 1), date(2028, 12, 31)),
    hour=st.integers(0, 23),
    lead=st.sampled_from(LEADS),
    said=st.sampled_from(DAYS),
    part=st.sampled_from(PARTS),
)
def test_a_period_typed_in_latin_letters_is_the_cyrillic_one(
    day: date, hour: int, lead: str, said: str, part: str
) -> None:
    cyrillic = " ".join(w for w in (lead, said, part) if w)
    if not (said or part):
        return
    extractor = _extractor(datetime(day.year, day.month, day.day, hour, 10, tzinfo=ZONE))
    expected = extractor.extract(cyrillic, PERIOD, language="ru")
    assert expected, cyrillic
    latin = cyrtranslit.to_latin(cyrillic, "ru")
    assert extractor.extract(latin, PERIOD, language="ru") == expected, latin


def test_latin_letters_keep_their_own_values_first() -> None:
    """A date written in digits stays the message's; the reading adds none of its own."""
    extractor = _extractor(datetime(2026, 12, 4, 10, tzinfo=ZONE))
    found = extractor.extract("ceny 2026-12-10 zavtra", PERIOD, language="ru")
    assert found["start"].startswith("2026-12-09T22")


def test_a_long_latin_message_is_read_promptly() -> None:
    extractor = _extractor(datetime(2026, 12, 4, 10, tzinfo=ZONE))
    found = extractor.extract("ceny " * 20_000 + "zavtra utrom", PERIOD, language="ru")  # 100,000+ characters
    assert isinstance(found, dict)


@settings(max_examples=30, deadline=None)
@given(day=st.dates(date(2025, 1, 1), date(2028, 12, 31)))
def test_at_the_weekend_is_the_coming_weekend(day: date) -> None:
    saturday = day + timedelta(days=(5 - day.weekday()) % 7)
    if day.weekday() == 6:
        saturday = day - timedelta(days=1)
    extractor = _extractor(datetime(day.year, day.month, day.day, 10, tzinfo=ZONE))
    for text in (
        "какая средняя цена будет на выходных?",
        "цена на выходных",
        "сколько будет стоить на выходных",
    ):
        found = extractor.extract(text, PERIOD, language="ru")
        start = datetime.fromisoformat(found["start"].replace("Z", "+00:00")).astimezone(ZONE)
        assert start.date() == saturday, text
