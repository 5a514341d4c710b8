"""Stretches counted from now ("the next 3 hours", "in an hour", "the past 7 days", "the
rest of today") and days moved from the period already asked ("the day before", "that
whole day"), in en/et/ru: generated phrasings (counts x units x forms x languages), the
request window they become in the citizen's zone (DST change days and month ends
included, as properties), and the answer shape's hours."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.from_now import find_stretches
from loop_svc.extraction.shifts import find_shift
from loop_svc.schema import ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import DateRange, Hours, Order

ZONE = ZoneInfo("Europe/Tallinn")
TODAY = date(2026, 12, 2)
PERIOD = [
    ParamSpec(name="start", type="datetime", required=True, description="Start of the period in ISO 8601"),
    ParamSpec(name="end", type="datetime", required=True, description="End of the period in ISO 8601"),
]
DAYS_ONLY = [
    ParamSpec(name="validFrom", type="date", required=True, description="Start of the date range"),
    ParamSpec(name="validTo", type="date", required=True, description="End of the date range"),
]
# Days that matter for a local day: both DST changes, month and year ends, a leap day.
SPECIAL_DAYS = [
    date(2026, 3, 29),
    date(2026, 10, 25),
    date(2026, 12, 31),
    date(2027, 2, 28),
    date(2028, 2, 29),
]
days = st.one_of(st.sampled_from(SPECIAL_DAYS), st.dates(date(2025, 1, 1), date(2028, 12, 31)))

# Counts as people write them: digits and number words in each language's case forms.
COUNTS = {
    "en": [("2", 2), ("3", 3), ("two", 2), ("three", 3), ("five", 5)],
    "et": [("2", 2), ("3", 3), ("kahe", 2), ("kolme", 3), ("viie", 5)],
    "ru": [("2", 2), ("3", 3), ("два", 2), ("три", 3), ("пять", 5)],
}
NEXT_HOURS = {
    "en": ["prices for the next {n} hours", "cheapest in the coming {n} hours?", "next {n} hrs electricity"],
    "et": [
        "elektri hind järgmise {n} tunni jooksul",
        "lähima {n} tunni hinnad",
        "mis on hind järgmised {n} tundi",
    ],
    "ru": ["цена в ближайшие {n} часа", "следующие {n} часов цены", "что по цене на ближайшие {n} часов"],
}
PAST_DAYS = {
    "en": ["average over the past {n} days", "prices for the last {n} days"],
    "et": ["viimase {n} päeva keskmine hind", "eelmised {n} päeva"],
    "ru": ["средняя цена за последние {n} дня", "цены за прошлые {n} дней"],
}
IN_ONE_HOUR = {
    "en": ["and in an hour?", "price in one hour", "what about an hour from now"],
    "et": ["ja tunni aja pärast", "aga tunni pärast?"],
    "ru": ["а через час?", "сколько будет через час"],
}
REST_OF_DAY = {
    "en": ["cheapest for the rest of today", "prices until midnight", "what about later today"],
    "et": ["ülejäänud päeva hinnad", "odavaim tund päeva lõpuni", "hinnad keskööni"],
    "ru": ["цены до конца дня", "самый дешевый час до полуночи", "остаток дня по ценам"],
}
DAY_BEFORE = {
    "en": ["and the day before?", "what about the previous day", "a day earlier?"],
    "et": ["aga päev varem?", "ja eelmisel päeval", "aga päev enne"],
    "ru": ["а днём раньше?", "а накануне?", "а за день до?"],
}
DAY_AFTER = {
    "en": ["and the next day?", "the following day please", "a day later?"],
    "et": ["aga järgmisel päeval?", "ja päev hiljem"],
    "ru": ["а на следующий день?", "а днем позже?"],
}


def extractor(now: datetime) -> RuleExtractor:
    return RuleExtractor(CountryNames(), zone=ZONE, now=lambda: now.astimezone(UTC))


def local(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(ZONE).replace(tzinfo=None)


@pytest.fixture(scope="module")
def at_ten() -> RuleExtractor:
    return extractor(datetime(2026, 12, 2, 10, 0, tzinfo=ZONE))


def _cases(table: dict[str, list[str]], counts: bool = True) -> list[tuple[str, str, int]]:
    out = []
    for lang, forms in table.items():
        for form in forms:
            for word, n in COUNTS[lang] if counts else [("", 1)]:
                out.append((lang, form.format(n=word), n))
    return out


@pytest.mark.parametrize(("lang", "message", "n"), _cases(NEXT_HOURS))
def test_the_next_n_hours_start_at_this_hour(at_ten: RuleExtractor, lang: str, message: str, n: int) -> None:
    found = at_ten.extract(message, PERIOD, language=lang)  # type: ignore[arg-type]
    assert local(found["start"]) == datetime(2026, 12, 2, 10, 0), message
    assert local(found["end"]) == datetime(2026, 12, 2, 10 + n - 1, 59, 59), message


@pytest.mark.parametrize(("lang", "message", "n"), _cases(PAST_DAYS))
def test_the_past_n_days_end_with_this_hour(at_ten: RuleExtractor, lang: str, message: str, n: int) -> None:
    found = at_ten.extract(message, PERIOD, language=lang)  # type: ignore[arg-type]
    assert local(found["end"]) == datetime(2026, 12, 2, 10, 59, 59), message
    assert local(found["start"]) == datetime(2026, 12, 2, 11, 0) - timedelta(days=n), message


@pytest.mark.parametrize(("lang", "message", "n"), _cases(IN_ONE_HOUR, counts=False))
def test_in_an_hour_is_the_next_hour(at_ten: RuleExtractor, lang: str, message: str, n: int) -> None:
    found = at_ten.extract(message, PERIOD, language=lang)  # type: ignore[arg-type]
    assert (local(found["start"]), local(found["end"])) == (
        datetime(2026, 12, 2, 11, 0),
        datetime(2026, 12, 2, 11, 59, 59),
    ), message


@pytest.mark.parametrize(("lang", "message", "n"), _cases(REST_OF_DAY, counts=False))
def test_the_rest_of_today_runs_from_this_hour_to_midnight(
    at_ten: RuleExtractor, lang: str, message: str, n: int
) -> None:
    found = at_ten.extract(message, PERIOD, language=lang)  # type: ignore[arg-type]
    assert (local(found["start"]), local(found["end"])) == (
        datetime(2026, 12, 2, 10, 0),
        datetime(2026, 12, 2, 23, 59, 59),
    ), message
    shape = RuleShapeReader(lambda: TODAY, lambda: datetime(2026, 12, 2, 10, 0)).read(message, lang)  # type: ignore[arg-type]
    assert Hours(10, 24) in [f.condition for f in shape.filters], message


def test_a_clock_hour_said_with_until_midnight_is_not_now(at_ten: RuleExtractor) -> None:
    assert find_stretches("kella 22st keskööni", TODAY, 10) == []
    assert find_stretches("from 22 until midnight", TODAY, 10) == []


def test_a_stretch_of_days_is_no_count_of_rows() -> None:
    reader = RuleShapeReader(lambda: TODAY, lambda: datetime(2026, 12, 2, 10, 0))
    for lang, message in [
        ("en", "electricity prices for the next 7 days"),
        ("et", "riigipühad järgmise 30 päeva jooksul"),
        ("ru", "цены за последние 3 дня"),
    ]:
        shape = reader.read(message, lang)  # type: ignore[arg-type]
        assert shape.selection is None, (message, shape)
    shape = reader.read("when's the peak in the next 7 days", "en")
    assert shape.selection is not None and shape.selection.order is Order.HIGHEST


def test_days_for_a_date_only_range(at_ten: RuleExtractor) -> None:
    found = at_ten.extract("holidays in the next 30 days", DAYS_ONLY, language="en")
    assert found == {"validFrom": "2026-12-02", "validTo": "2027-01-01"}


def utc(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@settings(max_examples=60, deadline=None)
@given(day=days, hour=st.integers(0, 23), n=st.integers(1, 48))
def test_next_n_hours_are_n_wall_hours_from_this_one(day: date, hour: int, n: int) -> None:
    moment = datetime.combine(day, time(hour, 30), tzinfo=ZONE).astimezone(UTC)
    found = extractor(moment).extract(f"the next {n} hours", PERIOD, language="en")
    # The hour the citizen's clock shows (a wall time skipped in spring reads as the next one).
    shown = moment.astimezone(ZONE)
    now = datetime.combine(shown.date(), time(shown.hour))
    assert utc(found["start"]) == now.replace(tzinfo=ZONE).astimezone(UTC)
    last = now + timedelta(hours=n, seconds=-1)
    assert utc(found["end"]) == last.replace(tzinfo=ZONE).astimezone(UTC)
    # Real time differs from wall time by at most the one hour of a DST change.
    length = utc(found["end"]) - utc(found["start"])
    assert abs(length - timedelta(hours=n, seconds=-1)) <= timedelta(hours=1)


@settings(max_examples=60, deadline=None)
@given(day=days, hour=st.integers(0, 23), n=st.integers(1, 30))
def test_next_and_past_n_days_across_month_and_year_ends(day: date, hour: int, n: int) -> None:
    ex = extractor(datetime.combine(day, time(hour), tzinfo=ZONE))
    ahead = ex.extract(f"next {n} days", DAYS_ONLY, language="en")
    # From now for n days: the last day is n days on, or the day before at midnight.
    last = day + timedelta(days=n if hour else n - 1)
    assert ahead == {"validFrom": day.isoformat(), "validTo": last.isoformat()}
    back = ex.extract(f"the past {n} days", DAYS_ONLY, language="en")
    first = day - timedelta(days=n if hour < 23 else n - 1)
    assert back == {"validFrom": first.isoformat(), "validTo": day.isoformat()}


@pytest.mark.parametrize(
    ("lang", "message", "moved"),
    [(lang, m, -1) for lang, ms in DAY_BEFORE.items() for m in ms]
    + [(lang, m, 1) for lang, ms in DAY_AFTER.items() for m in ms],
)
def test_a_day_moved_from_the_asked_one(at_ten: RuleExtractor, lang: str, message: str, moved: int) -> None:
    known = {"start": "2026-11-30T22:00:00Z", "end": "2026-12-01T21:59:59Z"}  # 1 December, Tallinn
    found = at_ten.extract(message, PERIOD, language=lang, known=known)  # type: ignore[arg-type]
    day = date(2026, 12, 1) + timedelta(days=moved)
    assert (local(found["start"]), local(found["end"])) == (
        datetime.combine(day, time(0)),
        datetime.combine(day, time(23, 59, 59)),
    ), message


@settings(max_examples=60, deadline=None)
@given(day=days, moved=st.integers(1, 9), back=st.booleans())
def test_a_moved_day_keeps_local_midnight_across_dst(day: date, moved: int, back: bool) -> None:
    start = datetime.combine(day, time(0), tzinfo=ZONE).astimezone(UTC)
    end = datetime.combine(day, time(23, 59, 59), tzinfo=ZONE).astimezone(UTC)
    known = {"start": f"{start:%Y-%m-%dT%H:%M:%SZ}", "end": f"{end:%Y-%m-%dT%H:%M:%SZ}"}
    message = f"and {moved} days {'earlier' if back else 'later'}?"
    found = extractor(datetime(2026, 12, 2, 10, tzinfo=ZONE)).extract(
        message, PERIOD, language="en", known=known
    )
    target = day + timedelta(days=-moved if back else moved)
    assert local(found["start"]) == datetime.combine(target, time(0))
    assert local(found["end"]) == datetime.combine(target, time(23, 59, 59))


def test_that_whole_day_widens_an_hour_to_its_day(at_ten: RuleExtractor) -> None:
    known = {"start": "2026-11-01T18:00:00Z", "end": "2026-11-01T18:59:59Z"}  # 20:00 local
    for lang, message in [
        ("ru", "а средняя за тот день"),
        ("en", "and the whole day?"),
        ("et", "aga terve päeva keskmine"),
    ]:
        found = at_ten.extract(message, PERIOD, language=lang, known=known)  # type: ignore[arg-type]
        assert (local(found["start"]), local(found["end"])) == (
            datetime(2026, 11, 1, 0, 0),
            datetime(2026, 11, 1, 23, 59, 59),
        ), message
        shape = RuleShapeReader(lambda: TODAY).read(message, lang)  # type: ignore[arg-type]
        assert Hours(0, 24) in [f.condition for f in shape.filters]


def test_a_day_range_with_from_is_no_hour() -> None:
    reader = RuleShapeReader(lambda: TODAY, lambda: datetime(2026, 12, 2, 10, 0))
    for lang, message in [
        ("ru", "средняя цена с 1 по 7 декабря"),
        ("en", "average price from 1 to 7 december"),
    ]:
        shape = reader.read(message, lang)  # type: ignore[arg-type]
        assert not any(isinstance(f.condition, Hours) for f in shape.filters), (message, shape)


def test_the_new_patterns_cost_linear_work_on_long_input() -> None:
    """Crafted input must not cost quadratic time (a backtracking pattern over 100,000
    characters never returns; the suite's timeout fails it)."""
    for text in ("next " * 20_000, "1 " * 50_000, "päev " * 20_000, "rest of the " * 8_000, "a" * 100_000):
        assert find_stretches(text, TODAY, 10) == [] or text.startswith("next")
        assert find_shift(text) is None or "päev" in text


@pytest.mark.parametrize(
    ("lang", "message", "end"),
    [
        ("en", "how many holidays until the end of the year", "2026-12-31"),
        ("en", "holidays till the end of the month", "2026-12-31"),
        ("et", "mitu riigipüha selle aasta lõpuni veel on", "2026-12-31"),
        ("et", "pühad kuu lõpuni", "2026-12-31"),
        ("ru", "сколько праздников до конца года", "2026-12-31"),
        ("ru", "праздники до конца месяца", "2026-12-31"),
    ],
)
def test_a_range_closed_ahead_opens_today(at_ten: RuleExtractor, lang: str, message: str, end: str) -> None:
    found = at_ten.extract(message, DAYS_ONLY, language=lang)  # type: ignore[arg-type]
    assert found == {"validFrom": "2026-12-02", "validTo": end}, message


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "how many holidays until the end of the year"),
        ("et", "mitu riigipüha selle aasta lõpuni veel on"),
        ("ru", "сколько праздников до конца года"),
    ],
)
def test_the_rows_up_to_an_end_said_alone(lang: str, message: str) -> None:
    shape = RuleShapeReader(lambda: TODAY).read(message, lang)  # type: ignore[arg-type]
    ranges = [f.condition for f in shape.filters if isinstance(f.condition, DateRange)]
    assert ranges == [DateRange(None, date(2026, 12, 31))], (message, shape)


def test_correction_and_from_hour_readers_cost_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: the words read after each correction word ("not …") and the
    clock-context scans of "from 6" candidates grow with the text, never with its square."""
    from loop_svc.extraction import rules, windows

    read: list[int] = []
    real_words = rules.words

    def counting_words(text: str) -> list:  # type: ignore[type-arg]
        read.append(len(text))
        return real_words(text)

    scans: list[int] = []
    real_context = windows._CLOCK_CONTEXT

    class CountingContext:
        def search(self, text: str) -> object:
            scans.append(len(text))
            return real_context.search(text)

    monkeypatch.setattr(rules, "words", counting_words)
    monkeypatch.setattr(windows, "_CLOCK_CONTEXT", CountingContext())
    extractor = RuleExtractor(CountryNames(), today=lambda: TODAY)

    def work(text: str) -> tuple[int, int]:
        read.clear()
        scans.clear()
        extractor.extract(text, DAYS_ONLY, language="en")
        windows.find_window(text, [])
        return sum(read), sum(scans)

    for piece in ("not 1 ", "from 6st ", "1-2-3-"):
        once, twice = work(piece * 2_000), work(piece * 4_000)
        # Twice the text, at most a little more than twice the work.
        assert twice[0] <= 2.2 * once[0] + 1_000, (piece, once, twice)
        assert twice[1] <= 2.2 * once[1] + 1_000, (piece, once, twice)
