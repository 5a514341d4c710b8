"""The answer operations (caller_svc.operations) as properties over generated results:
hourly series in the citizen's zone (DST change days and month ends included), lists of
dated items and spans, empty results. Each property says what the operation promises
for every input, not for one example."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caller_svc.labels import NO_LABELS, FieldLabel, LabelBook
from caller_svc.operations import answer
from caller_svc.rows import Table, locate
from services.answer_shape import (
    Aggregation,
    AnswerShape,
    Comparison,
    DateRange,
    Function,
    Hours,
    Kind,
    Months,
    Op,
    Order,
    PeriodComparison,
    RowFilter,
    Selection,
    Weekdays,
)

ZONE = ZoneInfo("Europe/Tallinn")
NOW = datetime(2026, 12, 1, 10, 0)
# Days that matter for a local day: both DST changes, month and year ends, a leap day.
SPECIAL_DAYS = [
    date(2026, 3, 29),
    date(2026, 10, 25),
    date(2027, 3, 28),
    date(2026, 12, 31),
    date(2028, 2, 29),
]
days = st.one_of(st.sampled_from(SPECIAL_DAYS), st.dates(date(2025, 1, 1), date(2028, 12, 31)))
prices = st.floats(min_value=-50, max_value=900, allow_nan=False, allow_infinity=False).map(
    lambda v: round(v, 2)
)


def local_day_series(day: date, values: list[float]) -> dict[str, Any]:
    """An Elering-shaped response: every hour of the citizen's `day` as UTC instants."""
    start = datetime(day.year, day.month, day.day, tzinfo=ZONE).astimezone(UTC)
    end = datetime(day.year, day.month, day.day, 23, 59, 59, tzinfo=ZONE).astimezone(UTC)
    rows = []
    moment = start
    index = 0
    while moment <= end:
        rows.append(
            {
                "timestamp": int(moment.timestamp()),
                "time": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "price": values[index % len(values)],
            }
        )
        moment += timedelta(hours=1)
        index += 1
    return {"success": True, "data": {"ee": rows}}


def table_of(data: Any) -> Table:
    table = locate(data, NO_LABELS, ZONE)
    assert table is not None
    return table


def run(data: Any, shape: AnswerShape) -> Any:
    return answer(table_of(data), shape, NO_LABELS, NOW)


@given(day=days, values=st.lists(prices, min_size=1, max_size=30))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_a_local_day_has_its_own_hours_on_both_dst_sides(day: date, values: list[float]) -> None:
    table = table_of(local_day_series(day, values))
    # Hours in the local day, from the zone's rules: 23 or 25 on the DST days of any year drawn.
    start = datetime(day.year, day.month, day.day, tzinfo=ZONE)
    following = day + timedelta(days=1)
    end = datetime(following.year, following.month, following.day, tzinfo=ZONE)
    expected = round((end.astimezone(UTC) - start.astimezone(UTC)) / timedelta(hours=1))
    assert len(table.rows) == expected
    assert {r.moment.date() for r in table.rows if r.moment} == {day}
    assert table.rows[0].moment is not None and table.rows[0].moment.hour == 0
    assert table.step == timedelta(hours=1)


@given(
    day=days,
    values=st.lists(prices, min_size=1, max_size=30),
    start=st.integers(0, 23),
    length=st.integers(1, 24),
)
@settings(deadline=None)  # a busy machine: no timed assertions
def test_an_hour_window_keeps_exactly_the_local_hours_in_it(
    day: date, values: list[float], start: int, length: int
) -> None:
    end = min(24, start + length)
    outcome = run(local_day_series(day, values), AnswerShape(filters=(RowFilter(Hours(start, end)),)))
    assert all(r.moment is not None and start <= r.moment.hour < end for r in outcome.rows)
    all_rows = table_of(local_day_series(day, values)).rows
    assert len(outcome.rows) == sum(1 for r in all_rows if r.moment and start <= r.moment.hour < end)


@given(
    values=st.lists(prices, min_size=1, max_size=30),
    order=st.sampled_from([Order.LOWEST, Order.HIGHEST]),
    count=st.integers(0, 30),
    day=days,
)
@settings(deadline=None)  # a busy machine: no timed assertions
def test_an_extreme_is_the_min_or_max_with_its_time(
    values: list[float], order: Order, count: int, day: date
) -> None:
    data = local_day_series(day, values)
    outcome = run(data, AnswerShape(Kind.EXTREME, selection=Selection(order, count)))
    series = [row["price"] for row in data["data"]["ee"]]
    wanted = max(1, count)
    assert len(outcome.rows) == min(wanted, len(series))
    picked = [r.data["price"] for r in outcome.rows]
    best = sorted(series, reverse=order is Order.HIGHEST)[: len(picked)]
    assert sorted(picked) == sorted(best)
    assert all(r.moment is not None for r in outcome.rows)


@given(values=st.lists(prices, min_size=1, max_size=30), day=days, start=st.integers(0, 23))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_an_average_is_over_the_asked_window_only(values: list[float], day: date, start: int) -> None:
    data = local_day_series(day, values)
    shape = AnswerShape(
        Kind.AGGREGATE, filters=(RowFilter(Hours(start, 24)),), aggregation=Aggregation(Function.AVERAGE)
    )
    outcome = run(data, shape)
    kept = [r.data["price"] for r in table_of(data).rows if r.moment and r.moment.hour >= start]
    assert outcome.aggregate is not None
    if kept:
        assert outcome.aggregate.value == round(sum(kept) / len(kept), 2)
        assert outcome.aggregate.count == len(kept)
    else:
        assert outcome.aggregate.value is None


def dated_items(draw_days: list[date], names: list[str]) -> list[dict[str, Any]]:
    return [
        {"startDate": d.isoformat(), "endDate": d.isoformat(), "name": [{"language": "EN", "text": n}]}
        for d, n in zip(draw_days, names, strict=False)
    ]


items = st.lists(days, min_size=0, max_size=25).flatmap(
    lambda ds: st.lists(
        st.sampled_from(["Alpha Day", "Beta Day", "Gamma Eve", "Delta"]), min_size=len(ds), max_size=len(ds)
    ).map(lambda ns: dated_items(sorted(ds), ns))
)


@given(rows=items, weekdays=st.sets(st.integers(1, 7), min_size=1, max_size=6), negate=st.booleans())
@settings(deadline=None)  # a busy machine: no timed assertions
def test_a_weekday_filter_keeps_the_rows_on_those_days(
    rows: list[dict[str, Any]], weekdays: set[int], negate: bool
) -> None:
    if not rows:
        return
    outcome = run(rows, AnswerShape(filters=(RowFilter(Weekdays(tuple(sorted(weekdays))), negate),)))
    expected = [r for r in rows if (date.fromisoformat(r["startDate"]).isoweekday() in weekdays) != negate]
    assert [r.data for r in outcome.rows] == expected


@given(rows=items, months=st.sets(st.integers(1, 12), min_size=1, max_size=4))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_a_month_filter_keeps_the_rows_of_those_months_in_any_year(
    rows: list[dict[str, Any]], months: set[int]
) -> None:
    if not rows:
        return
    outcome = run(rows, AnswerShape(filters=(RowFilter(Months(tuple(sorted(months)))),)))
    assert [r.data for r in outcome.rows] == [r for r in rows if int(r["startDate"][5:7]) in months]


@given(rows=items, first=days, span=st.integers(0, 400))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_a_date_range_keeps_the_rows_within_it(rows: list[dict[str, Any]], first: date, span: int) -> None:
    if not rows:
        return
    last = first + timedelta(days=span)
    outcome = run(rows, AnswerShape(filters=(RowFilter(DateRange(first, last)),)))
    assert [r.data for r in outcome.rows] == [
        r for r in rows if first <= date.fromisoformat(r["startDate"]) <= last
    ]


@given(rows=items, count=st.integers(1, 30), order=st.sampled_from([Order.FIRST, Order.LATEST, Order.NEXT]))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_exactly_n_rows_from_the_asked_end(rows: list[dict[str, Any]], count: int, order: Order) -> None:
    if not rows:
        return
    outcome = run(rows, AnswerShape(Kind.COUNT, selection=Selection(order, count)))
    dates = [date.fromisoformat(r["startDate"]) for r in rows]
    if order is Order.FIRST:
        assert [r.data for r in outcome.rows] == rows[:count]
    elif order is Order.LATEST:
        got = [date.fromisoformat(r.data["startDate"]) for r in outcome.rows]
        assert got == sorted(dates, reverse=True)[:count]
    else:
        upcoming = sorted(d for d in dates if d >= NOW.date())
        assert [date.fromisoformat(r.data["startDate"]) for r in outcome.rows] == upcoming[:count]


@given(rows=items)
@settings(deadline=None)  # a busy machine: no timed assertions
def test_how_many_counts_the_filtered_rows(rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    shape = AnswerShape(
        Kind.AGGREGATE, filters=(RowFilter(Weekdays((6, 7))),), aggregation=Aggregation(Function.COUNT)
    )
    outcome = run(rows, shape)
    weekend = [r for r in rows if date.fromisoformat(r["startDate"]).isoweekday() >= 6]
    assert outcome.aggregate is not None and outcome.aggregate.value == len(weekend)


@given(rows=items, op=st.sampled_from(list(Op)), value=prices)
@settings(deadline=None)  # a busy machine: no timed assertions
def test_a_comparison_on_the_only_number(rows: list[dict[str, Any]], op: Op, value: float) -> None:
    numbered = [{**r, "amount": i * 7.5} for i, r in enumerate(rows)]
    if not numbered:
        return
    outcome = run(numbered, AnswerShape(filters=(RowFilter(Comparison(op, value)),)))
    assert [r.data for r in outcome.rows] == [r for r in numbered if op.holds(r["amount"], value)]


@given(
    shape=st.builds(
        AnswerShape,
        kind=st.sampled_from(list(Kind)),
        filters=st.lists(
            st.sampled_from(
                [
                    RowFilter(Hours(18, 22)),
                    RowFilter(Weekdays((1,))),
                    RowFilter(Months((12,))),
                    RowFilter(Comparison(Op.GT, 10)),
                ]
            ),
            max_size=3,
        ).map(tuple),
        selection=st.one_of(st.none(), st.builds(Selection, st.sampled_from(list(Order)), st.integers(0, 5))),
        aggregation=st.one_of(st.none(), st.builds(Aggregation, st.sampled_from(list(Function)))),
        terms=st.lists(st.text(max_size=12), max_size=4).map(tuple),
    )
)
@settings(max_examples=200, deadline=None)
def test_every_operation_is_total_on_empty_and_odd_results(shape: AnswerShape) -> None:
    for data in (
        [],
        [{}],
        [{"x": None}],
        {"data": {"ee": []}},
        {"a": 1, "b": "text"},
        [{"when": "not a date"}],
    ):
        table = locate(data, NO_LABELS, ZONE)
        if table is None:
            continue
        outcome = answer(table, shape, NO_LABELS, NOW)
        assert len(outcome.rows) <= max(1, len(table.rows))


def test_spans_are_chosen_by_their_length() -> None:
    breaks = [
        {"startDate": "2026-10-19", "endDate": "2026-10-25", "name": "Autumn"},
        {"startDate": "2026-12-21", "endDate": "2027-01-10", "name": "Christmas"},
        {"startDate": "2027-06-14", "endDate": "2027-08-31", "name": "Summer"},
    ]
    longest = run(breaks, AnswerShape(Kind.EXTREME, selection=Selection(Order.LONGEST)))
    assert [r.data["name"] for r in longest.rows] == ["Summer"]
    christmas = run(
        breaks, AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.DURATION), terms=("christmas",))
    )
    assert christmas.aggregate is not None and christmas.aggregate.value == 21
    on_day = run(
        breaks, AnswerShape(Kind.YES_NO, filters=(RowFilter(DateRange(date(2027, 1, 4), date(2027, 1, 4))),))
    )
    assert on_day.verdict is True and [r.data["name"] for r in on_day.rows] == ["Christmas"]
    off_day = run(
        breaks,
        AnswerShape(Kind.YES_NO, filters=(RowFilter(DateRange(date(2027, 1, 11), date(2027, 1, 11))),)),
    )
    assert off_day.verdict is False


def test_words_pick_rows_only_where_they_tell_rows_apart() -> None:
    votes = [
        {
            "date": "2026-02-18",
            "title": "Income Tax Act Amendment Bill",
            "result": {"for": 52, "against": 41},
        },
        {"date": "2026-02-11", "title": "Weapons Act Amendment Bill", "result": {"for": 67, "against": 9}},
    ]
    picked = run(votes, AnswerShape(terms=("weapons", "against")))
    assert [r.data["title"] for r in picked.rows] == ["Weapons Act Amendment Bill"]
    assert [f.key for f in picked.asked] == ["against"]
    # "bill" is in every title and "riigikogu" in none: neither picks anything.
    assert len(run(votes, AnswerShape(terms=("bill", "riigikogu"))).rows) == 2
    # The endpoint's own words never pick rows.
    assert (
        len(
            answer(
                table_of(votes),
                AnswerShape(terms=("income",)),
                NO_LABELS,
                NOW,
                known_words=frozenset({"income"}),
            ).rows
        )
        == 2
    )
    most_against = run(
        votes, AnswerShape(Kind.EXTREME, selection=Selection(Order.HIGHEST, terms=("against",)))
    )
    assert [r.data["title"] for r in most_against.rows] == ["Income Tax Act Amendment Bill"]


@given(
    values=st.lists(prices, min_size=2, max_size=30),
    day=days,
    order=st.sampled_from([Order.LOWEST, Order.HIGHEST]),
)
@settings(deadline=None)
def test_an_average_asked_with_one_extreme_is_over_the_whole_window(
    values: list[float], day: date, order: Order
) -> None:
    """ "Average and the cheapest + dearest hour": the average of the window, with its
    lowest and highest rows, not of the one row picked."""
    data = local_day_series(day, values)
    shape = AnswerShape(
        Kind.AGGREGATE, selection=Selection(order, 0), aggregation=Aggregation(Function.AVERAGE)
    )
    outcome = run(data, shape)
    series = [row["price"] for row in data["data"]["ee"]]
    assert outcome.aggregate is not None
    assert outcome.aggregate.value == round(sum(series) / len(series), 2)
    assert outcome.aggregate.low is not None and outcome.aggregate.high is not None
    assert number_at(outcome.aggregate.low) == min(series)
    assert number_at(outcome.aggregate.high) == max(series)


def number_at(row: Any) -> float:
    return float(row.data["price"])


@given(
    day=days,
    first=st.lists(prices, min_size=1, max_size=24),
    second=st.lists(prices, min_size=1, max_size=24),
)
@settings(max_examples=60, deadline=None)  # a busy machine: no timed assertions
def test_two_days_compared_by_their_means_whatever_day_filters_the_words_gave(
    day: date, first: list[float], second: list[float]
) -> None:
    """ "Is it cheaper on Friday than tomorrow": the weekday and the date read from the same
    words are the periods compared, not filters that leave one of them without rows."""
    nxt = day + timedelta(days=1)
    one, two = local_day_series(day, first), local_day_series(nxt, second)
    data = {"success": True, "data": {"ee": one["data"]["ee"] + two["data"]["ee"]}}
    shape = AnswerShape(
        Kind.YES_NO,
        filters=(RowFilter(Weekdays((nxt.isoweekday(),))), RowFilter(DateRange(day, day))),
        period_comparison=PeriodComparison(DateRange(nxt, nxt), DateRange(day, day), Op.LT),
    )
    outcome = run(data, shape)
    assert outcome.periods is not None
    means = [
        round(sum(v) / len(v), 2)
        for v in ([r["price"] for r in two["data"]["ee"]], [r["price"] for r in one["data"]["ee"]])
    ]
    assert [outcome.periods[0].value, outcome.periods[1].value] == means
    assert outcome.verdict == (means[0] < means[1])


spans = st.lists(
    st.tuples(days, st.integers(0, 90), st.sampled_from(["Spring break", "Summer break", "Winter break"])),
    min_size=1,
    max_size=8,
)


def span_items(drawn: list[tuple[date, int, str]]) -> list[dict[str, Any]]:
    return [
        {
            "startDate": first.isoformat(),
            "endDate": (first + timedelta(days=length)).isoformat(),
            "name": [{"language": "EN", "text": name}],
        }
        for first, length, name in drawn
    ]


@given(drawn=spans)
@settings(deadline=None)  # a busy machine: no timed assertions
def test_how_many_days_is_the_length_of_the_one_period_or_the_count_of_single_days(
    drawn: list[tuple[date, int, str]],
) -> None:
    rows = span_items(drawn)
    shape = AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.DURATION, ("days",)))
    outcome = run(rows, shape)
    lengths = [length + 1 for _, length, _ in drawn]
    assert outcome.aggregate is not None
    if max(lengths) == 1:
        # single days last no longer: they are counted
        assert outcome.aggregate.function is Function.COUNT
        assert outcome.aggregate.value == len(rows)
    elif len(rows) == 1:
        assert outcome.aggregate.value == lengths[0]  # both ends are days of it


def test_a_value_every_row_has_leaves_the_words_to_pick_rows() -> None:
    rows = [
        {"startDate": f"2027-0{m}-01", "endDate": f"2027-0{m}-07", "nationwide": True,
         "name": [{"language": "EN", "text": n}, {"language": "RU", "text": r}]}
        for m, n, r in ((3, "Winter holidays", "Зимние каникулы"), (6, "Summer holidays", "Летние каникулы"))
    ]  # fmt: skip
    shape = AnswerShape(
        Kind.AGGREGATE, aggregation=Aggregation(Function.DURATION), terms=("летние", "каникулы")
    )
    outcome = run(rows, shape)
    assert [r.data["name"][0]["text"] for r in outcome.rows] == ["Summer holidays"]
    assert outcome.aggregate is not None and outcome.aggregate.value == 7


votes = st.lists(
    st.tuples(st.integers(0, 101), st.integers(0, 101)), min_size=2, max_size=12, unique_by=lambda t: t[1]
)


@given(drawn=votes)
@settings(deadline=None)  # a busy machine: no timed assertions
def test_both_extremes_are_the_rows_with_the_lowest_and_highest_number(drawn: list[tuple[int, int]]) -> None:
    rows = [
        {"votingNumber": 400 + i, "title": f"Bill {i}", "for": pro, "against": contra}
        for i, (pro, contra) in enumerate(drawn)
    ]
    shape = AnswerShape(Kind.AGGREGATE, aggregation=Aggregation(Function.RANGE, ("against",)))
    outcome = run(rows, shape)
    assert outcome.aggregate is not None and outcome.aggregate.low and outcome.aggregate.high
    assert outcome.aggregate.low.data["against"] == min(c for _, c in drawn)
    assert outcome.aggregate.high.data["against"] == max(c for _, c in drawn)


MARGIN_QUESTIONS = {
    "en": ("which vote had the smallest margin between for and against", Order.LOWEST),
    "et": ("kus oli poolt ja vastu häälte vahe kõige suurem", Order.HIGHEST),
    "ru": ("в каком голосовании разница между за и против была самой маленькой", Order.LOWEST),
}
VOTE_LABELS = LabelBook(
    fields={
        "for": FieldLabel(labels={"en": "For", "et": "Poolt", "ru": "За"}),
        "against": FieldLabel(labels={"en": "Against", "et": "Vastu", "ru": "Против"}),
    }
)


@pytest.mark.parametrize("lang", sorted(MARGIN_QUESTIONS))
@given(drawn=votes)
@settings(deadline=None)  # a busy machine: no timed assertions
def test_the_margin_between_two_numbers_picks_the_row(lang: str, drawn: list[tuple[int, int]]) -> None:
    question, order = MARGIN_QUESTIONS[lang]
    rows = [{"votingNumber": 400 + i, "for": pro, "against": contra} for i, (pro, contra) in enumerate(drawn)]
    shape = AnswerShape(Kind.EXTREME, selection=Selection(order), question=question)
    table = locate(rows, VOTE_LABELS, ZONE)
    assert table is not None
    outcome = answer(table, shape, VOTE_LABELS, NOW)
    margins = [abs(p - c) for p, c in drawn]
    wanted = min(margins) if order is Order.LOWEST else max(margins)
    (row,) = outcome.rows
    assert abs(row.data["for"] - row.data["against"]) == wanted
    assert {f.path for f in outcome.asked[:2]} == {"for", "against"}


@given(drawn=spans, count=st.integers(1, 5))
@settings(deadline=None)  # a busy machine: no timed assertions
def test_the_next_periods_are_the_ones_still_to_begin(drawn: list[tuple[date, int, str]], count: int) -> None:
    # "the next two school breaks" during the summer break: the one under way is no next one.
    rows = span_items(drawn)
    outcome = run(rows, AnswerShape(Kind.COUNT, selection=Selection(Order.NEXT, count)))
    starts = sorted(first for first, _, _ in drawn if first >= NOW.date())
    assert sorted(date.fromisoformat(r.data["startDate"]) for r in outcome.rows) == starts[:count]


@given(rows=items, day=days)
@settings(deadline=None)  # a busy machine: no timed assertions
def test_a_yes_no_about_a_day_no_row_is_on_names_the_nearest_rows(
    rows: list[dict[str, Any]], day: date
) -> None:
    # "Is 24 December a holiday in Germany?": no, and the rows nearest to that day.
    if not rows:
        return
    shape = AnswerShape(Kind.YES_NO, filters=(RowFilter(DateRange(day, day)),))
    outcome = run(rows, shape)
    on_the_day = [r for r in rows if r["startDate"] == day.isoformat()]
    if on_the_day:
        assert outcome.verdict is True and not outcome.nearby
        return
    assert outcome.verdict is False and outcome.nearby_day == day
    distances = [abs((date.fromisoformat(r.data["startDate"]) - day).days) for r in outcome.nearby]
    every = sorted(abs((date.fromisoformat(r["startDate"]) - day).days) for r in rows)
    assert distances == every[: len(distances)] and 1 <= len(distances) <= 3
