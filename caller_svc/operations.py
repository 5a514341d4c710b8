"""Deterministic answer operations: an AnswerShape applied to a result's rows.

Filters (weekday, month, local date range, hours of the day, a number compared,
words of the rows' texts) keep rows; a selection picks the first N, the latest, the
next from now, the lowest or highest by a number, the longest span; an aggregate
counts, averages, sums or ranges a number over the filtered rows; a yes/no question
gets its verdict from a flag, a number, a status or the rows' existence. Which field
is "the price", "votes against" or "the status" is read from the result's own keys
and the endpoint's labels (services.field_terms), never from names known here.

Every operation is total: a filter the rows cannot be judged by is skipped, an
empty result stays empty, an unknown number leaves the selection undone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from caller_svc.json_view import is_number
from caller_svc.labels import LabelBook
from caller_svc.rows import Field, Row, Table, value_at
from services.answer_shape import (
    AnswerShape,
    Comparison,
    DateRange,
    Function,
    Hours,
    Kind,
    Months,
    Order,
    PeriodComparison,
    RowFilter,
    TextMatch,
    Weekdays,
)
from services.field_terms import (
    OUTCOME_NO,
    OUTCOME_YES,
    fold,
    matches_any,
    same_as_any,
    split_words,
    words_match,
)

# Words that name money or a status in the three languages: the concept, not a field.
_MONEY = frozenset("eur euro euros eurot eurit €  евро евр raha maks tax price hind цена cost".split())
_STATUS = frozenset("status state olek seisund staatus статус состояние".split())
_TOTAL = frozenset("total annual sum kokku aasta aastamaks итог итого годовой overall".split())
_MAX_SHOWN_VERDICT_ROWS = 5
_MAX_NEARBY_ROWS = 3
# Negation of what follows ("did not pass", "ei läinud läbi", "не прошли").
_NEGATION = frozenset("not no never didn't wasn't weren't isn't aren't ei pole mitte не нет".split())


@dataclass(frozen=True)
class Aggregate:
    function: Function
    value: float | None
    measure: Field | None = None
    count: int = 0
    low: Row | None = None
    high: Row | None = None


@dataclass
class Outcome:
    table: Table
    shape: AnswerShape
    rows: list[Row]
    total: int
    matched: int
    narrowed: bool = False
    measure: Field | None = None
    asked: list[Field] = field(default_factory=list)
    fields_only: bool = False
    # Only the asked fields were wanted ("just the postal code", "только индекс"): a row
    # shows its name, its day and them, none of its other numbers.
    alone: bool = False
    verdict: bool | None = None
    aggregate: Aggregate | None = None
    order: Order | None = None
    # Terms that named neither a field nor anything in the rows.
    unresolved: tuple[str, ...] = ()
    # A period compared with another: the subject's mean, then the reference's.
    periods: tuple[Aggregate, Aggregate] | None = None
    # When the asked period holds no row but the result has dated rows: the row nearest
    # to it (the latest before it, else the first after it) and on which side it is.
    nearest: Row | None = None
    nearest_after: bool = False
    # The rows that run on from the nearest day by day (Christmas Day, then the Second Day
    # of Christmas): one stretch of days, said together.
    nearest_run: list[Row] = field(default_factory=list)
    # "How many … against": a count asked of a field that holds it, not of the rows.
    counts_field: bool = False
    # The days asked as working or school days that fall on a weekend (no working day).
    off_week: list[date] = field(default_factory=list)
    # A yes/no about one day no row is on: the rows nearest to that day, nearest first.
    nearby: list[Row] = field(default_factory=list)
    nearby_day: date | None = None


def _terms(words: Sequence[str], shortest: int = 3) -> list[str]:
    out: list[str] = []
    for word in words:
        for part in split_words(word):
            if (len(part) >= shortest or part.isdigit()) and part not in out:
                out.append(part)
    return out


def fields_named(table: Table, terms: Sequence[str], kinds: tuple[str, ...] | None = None) -> list[Field]:
    """The fields a question's words name, in the order the words come."""
    found: list[Field] = []
    for term in terms:
        for f in table.fields.values():
            if kinds is not None and f.kind not in kinds:
                continue
            if f not in found and matches_any(term, f.words):
                found.append(f)
    return found


def _texts(row: Row, table: Table) -> list[str]:
    out: list[str] = []
    for path, f in table.fields.items():
        if f.kind in ("text", "multilingual"):
            value = value_at(row.data, path)
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, list):
                out.extend(str(v.get("text", "")) for v in value if isinstance(v, dict))
    return out


def _row_words(row: Row, table: Table) -> list[str]:
    return [w for text in _texts(row, table) for w in split_words(text)]


def default_measure(table: Table, terms: Sequence[str], labels: LabelBook) -> Field | None:
    """The number a question is about when its words name none: the only one; else,
    when money is meant or a total exists, the total among the money fields."""
    numbers = table.numbers()
    if not numbers:
        return None
    if len(numbers) == 1:
        return numbers[0]
    money = [f for f in numbers if _is_money(f, labels)]
    pool = money or numbers
    totals = [f for f in pool if f.words & _TOTAL]
    if totals:
        return totals[-1]
    if money and any(t in _MONEY for t in terms):
        return money[-1]
    return pool[0]


def _is_money(f: Field, labels: LabelBook) -> bool:
    found = labels.field_label(f.path)
    units = set(found.units.values()) if found else set()
    return (
        bool(units & {"€", "EUR", "eur"}) or any(u.startswith("€") for u in units) or bool(f.words & _MONEY)
    )


def measure_of(table: Table, terms: Sequence[str], labels: LabelBook) -> Field | None:
    """The number the words name (never an ordinal such as a voting's number), else the default."""
    numbers = table.numbers()
    named = [f for f in fields_named(table, terms, ("number",)) if f in numbers]
    if len(named) > 1:
        # The field most of the words name ("annual tax" over "tax"); money first for money words.
        def score(f: Field) -> tuple[int, int]:
            hits = sum(1 for t in terms if matches_any(t, f.words))
            return hits, int(any(t in _MONEY for t in terms) and _is_money(f, labels))

        named.sort(key=score, reverse=True)
    return named[0] if named else default_measure(table, terms, labels)


def number_of(row: Row, f: Field | None) -> float | None:
    if f is None:
        return None
    value = value_at(row.data, f.path)
    return float(value) if is_number(value) else None


# Filters ------------------------------------------------------------------------------------


def _judgeable(rows: list[Row], condition: Any) -> bool:
    if isinstance(condition, Hours):
        return any(r.moment is not None for r in rows)
    if isinstance(condition, Weekdays | Months | DateRange):
        return any(r.day is not None for r in rows)
    return True


def _meets(row: Row, condition: Any, table: Table, labels: LabelBook, terms: Sequence[str]) -> bool | None:
    if isinstance(condition, Weekdays):
        span = row.days
        if span is None:
            return None
        return any(
            (span[0].isoweekday() - 1 + offset) % 7 + 1 in condition.days
            for offset in range(min(7, (span[1] - span[0]).days + 1))
        )
    if isinstance(condition, Months):
        span = row.days
        if span is None:
            return None
        first, last = span
        months = {(first.year * 12 + first.month - 1 + k) % 12 + 1 for k in range(_month_count(first, last))}
        return bool(months & set(condition.months))
    if isinstance(condition, DateRange):
        span = row.days
        return None if span is None else condition.overlaps(*span)
    if isinstance(condition, Hours):
        return None if row.moment is None else condition.contains(row.moment.hour)
    if isinstance(condition, Comparison):
        value = number_of(row, measure_of(table, [*condition.terms, *terms], labels))
        return None if value is None else condition.op.holds(value, condition.value)
    return None


_DAY_CONDITIONS = (Weekdays, Months, DateRange)


def nearest_outside(rows: list[Row], filters: Sequence[RowFilter]) -> tuple[Row, bool] | None:
    """The row nearest to the period the day filters ask for, when none of `rows` is in
    it ("votes last week" when the record ends in February): the latest one before the
    period, else the first after it, with whether it is after. None when the filters name
    no period or no row is dated."""
    periods = [f.condition for f in filters if isinstance(f.condition, _DAY_CONDITIONS) and not f.negate]
    dated = [r for r in rows if r.days is not None]
    if not periods or not dated:
        return None
    starts = [p.start for p in periods if isinstance(p, DateRange) and p.start is not None]
    ends = [p.end for p in periods if isinstance(p, DateRange) and p.end is not None]
    opens = max(starts) if starts else None
    closes = min(ends) if ends else None
    before = [r for r in dated if opens is None or r.days[1] < opens]  # type: ignore[index]
    if before:
        return max(before, key=_time_key), False
    after = [r for r in dated if closes is not None and r.days[0] > closes]  # type: ignore[index]
    if after:
        return min(after, key=_time_key), True
    return None


def _one_day(filters: Sequence[RowFilter]) -> date | None:
    """The one day the day filters ask about, if they name exactly one."""
    days = [f.condition for f in filters if isinstance(f.condition, DateRange) and not f.negate]
    if len(days) == 1 and days[0].start is not None and days[0].start == days[0].end:
        return days[0].start
    return None


def nearest_to(rows: list[Row], day: date) -> list[Row]:
    """The dated rows by how many days they lie from `day` (a span by its nearer end)."""

    def distance(row: Row) -> int:
        first, last = row.days  # type: ignore[misc]
        return 0 if first <= day <= last else min(abs((first - day).days), abs((last - day).days))

    return sorted((r for r in rows if r.days is not None), key=lambda r: (distance(r), _time_key(r)))


def run_on_from(row: Row, rows: list[Row], *, forward: bool) -> list[Row]:
    """The rows that continue `row` without a day between (forward: later ones; else
    earlier ones, nearest last), up to a week of them."""
    if row.days is None:
        return []
    dated = [r for r in rows if r.days is not None and r is not row]
    out: list[Row] = []
    first, last = row.days
    for _ in range(_RUN_LIMIT):
        if forward:
            nxt = [
                r for r in dated if r not in out and r.days is not None and 0 < (r.days[0] - last).days <= 1
            ]
        else:
            nxt = [
                r for r in dated if r not in out and r.days is not None and 0 < (first - r.days[1]).days <= 1
            ]
        if not nxt:
            break
        chosen = min(nxt, key=_time_key) if forward else max(nxt, key=_time_key)
        out.append(chosen)
        assert chosen.days is not None
        first, last = (first, chosen.days[1]) if forward else (chosen.days[0], last)
    return out if forward else list(reversed(out))


_RUN_LIMIT = 7


def _month_count(first: Any, last: Any) -> int:
    return min(12, (last.year - first.year) * 12 + last.month - first.month + 1)


def text_filter(rows: list[Row], table: Table, words: Sequence[str]) -> list[Row] | None:
    """The rows whose texts hold most of the words that tell rows apart (a word found
    in every row, or in none, tells nothing); None when no word tells any apart."""
    if len(rows) < 2:
        return None
    row_words = [_row_words(r, table) for r in rows]
    telling = [w for w in words if 0 < sum(1 for rw in row_words if same_as_any(w, rw)) < len(rows)]
    if not telling:
        return None
    scores = [sum(1 for w in telling if same_as_any(w, rw)) for rw in row_words]
    best = max(scores)
    return [r for r, s in zip(rows, scores, strict=True) if s == best]


def _said(term: str, concept: frozenset[str]) -> bool:
    return any(words_match(term, fold(w)) for w in concept)


def _has_word(term: str, words: set[str]) -> bool:
    """The term in some form, also inside a compound ("hääletas" in "lõpphääletus")."""
    head = term[: max(5, len(term) - 3)]
    return matches_any(term, words) or (len(term) >= 5 and any(head in w for w in words))


def _negated(question: str) -> bool:
    return any(w in _NEGATION for w in fold(question).replace("’", "'").split()) or "n't" in question


def value_filter(
    rows: list[Row], table: Table, labels: LabelBook, terms: Sequence[str], question: str
) -> list[Row] | None:
    """The rows whose true/false or enumerated field has the value the question names
    ("which of those did not pass", "only the final votes", "какие не прошли"); None when
    it names none. A flag is named by its own key and labels or, when it is the result's
    only flag, by how an outcome is said; an enumerated value by its raw value or its
    labels in any language, when the word names that value and not all of them. A
    negation in the question keeps the other rows."""
    if len(rows) < 2 or not terms:
        return None
    negate = _negated(question)
    flags = [f for f in table.fields.values() if f.kind == "bool"]
    for f in flags:
        # A word that names another field too ("vastu": "Vastu võetud" and "Vastu") names neither.
        others = [o for o in table.fields.values() if o is not f]
        named = any(
            matches_any(t, f.words) and not any(matches_any(t, o.words) for o in others) for t in terms
        )
        yes = named or (len(flags) == 1 and any(_said(t, OUTCOME_YES) for t in terms))
        no = len(flags) == 1 and any(_said(t, OUTCOME_NO) for t in terms)
        if not (yes or no):
            continue
        # A failure word outweighs: "kukkusid läbi" (fell through) says "läbi" too.
        wanted = (not no) != negate
        kept = [r for r in rows if isinstance(v := value_at(r.data, f.path), bool) and v == wanted]
        return kept
    for f in table.fields.values():
        found = labels.field_label(f.path)
        if f.kind != "text" or found is None or len(found.values) < 2:
            continue
        words = {
            value: {*split_words(value), *(w for text in texts.values() for w in split_words(text))}
            for value, texts in found.values.items()
        }
        # A word every value has ("vote" in "final vote" and "vote on a motion") tells none apart.
        hits = {
            value: sum(
                1 for t in terms if matches_any(t, ws) and not all(_has_word(t, o) for o in words.values())
            )
            for value, ws in words.items()
        }
        best = max(hits.values())
        chosen = [value for value, n in hits.items() if n == best]
        if best == 0 or len(chosen) != 1:
            continue
        kept = [r for r in rows if (value_at(r.data, f.path) == chosen[0]) != negate]
        return kept
    return None


def apply_filters(
    rows: list[Row], filters: Sequence[RowFilter], table: Table, labels: LabelBook, terms: Sequence[str]
) -> list[Row]:
    for row_filter in filters:
        condition = row_filter.condition
        if isinstance(condition, TextMatch):
            kept = text_filter(rows, table, _terms(condition.words))
            if kept is not None:
                rows = [r for r in rows if r not in kept] if row_filter.negate else kept
            continue
        if not _judgeable(rows, condition):
            continue
        kept_rows = []
        for row in rows:
            verdict = _meets(row, condition, table, labels, terms)
            if verdict is None:
                continue
            if verdict != row_filter.negate:
                kept_rows.append(row)
        rows = kept_rows
    return rows


# Selection ----------------------------------------------------------------------------------


def _time_key(row: Row) -> tuple[int, datetime]:
    if row.moment is not None:
        return 0, row.moment
    if row.day is not None:
        return 0, datetime(row.day.year, row.day.month, row.day.day)
    return 1, datetime.min


def select(
    rows: list[Row], order: Order, count: int, skip: int, measure: Field | None, now: datetime
) -> list[Row]:
    timed = [r for r in rows if r.moment is not None or r.day is not None]
    ranked: list[Row]
    if order is Order.FIRST:
        ranked = list(rows)
    elif order is Order.LATEST:
        ranked = sorted(timed, key=_time_key, reverse=True) if timed else list(reversed(rows))
    elif order is Order.EARLIEST:
        ranked = sorted(timed, key=_time_key) if timed else list(rows)
    elif order is Order.NEXT:
        hour = now.replace(minute=0, second=0, microsecond=0)

        def upcoming(r: Row) -> bool:
            if r.moment is not None:
                return r.moment >= hour
            # "the next two school breaks" during the summer break: the ones still to
            # begin (a day's own row, today's holiday, is still the next one).
            span = r.days
            return span is not None and span[0] >= now.date()

        ranked = sorted((r for r in timed if upcoming(r)), key=_time_key) if timed else list(rows)
    elif order in (Order.LONGEST, Order.SHORTEST):
        spans = [r for r in rows if r.span_days is not None]
        ranked = sorted(spans, key=lambda r: r.span_days or 0, reverse=order is Order.LONGEST)
    else:
        valued = [r for r in rows if number_of(r, measure) is not None]
        if not valued:
            return list(rows)
        ranked = sorted(valued, key=lambda r: number_of(r, measure) or 0.0, reverse=order is Order.HIGHEST)
    wanted = max(1, count)
    return ranked[skip : skip + wanted]


# The concept of a difference between two numbers, in the three languages.
_DIFFERENCE = frozenset("difference margin gap vahe erinevus разница разрыв перевес".split())


def _margin_fields(table: Table, terms: Sequence[str]) -> tuple[Field, Field] | None:
    """The two numbers whose difference the words ask about ("the gap between for and
    against"), when they name a difference and two numbers."""
    if not any(_said(t, _DIFFERENCE) for t in terms):
        return None
    named = [f for f in fields_named(table, terms, ("number",)) if f in table.numbers()]
    return (named[0], named[1]) if len(named) >= 2 else None


def select_by_margin(
    rows: list[Row], fields: tuple[Field, Field], order: Order, count: int, skip: int
) -> list[Row]:
    """The rows with the smallest (LOWEST) or largest (HIGHEST) difference of two numbers."""
    valued = [
        (r, abs(a - b))
        for r in rows
        if (a := number_of(r, fields[0])) is not None and (b := number_of(r, fields[1])) is not None
    ]
    valued.sort(key=lambda pair: pair[1], reverse=order is Order.HIGHEST)
    return [r for r, _ in valued][skip : skip + max(1, count)]


# Aggregates ---------------------------------------------------------------------------------


def aggregate(
    rows: list[Row], function: Function, measure: Field | None, now: datetime | None = None
) -> Aggregate:
    if function is Function.DAYS_UNTIL:
        # The days from today to the first row that has not begun (none: no number).
        if now is None:
            return Aggregate(function, None, None, 0)
        today = now.date()
        starts = sorted(r.day for r in rows if r.day is not None and r.day >= today)
        return Aggregate(function, float((starts[0] - today).days) if starts else None, None, len(starts))
    if function is Function.COUNT:
        return Aggregate(function, float(len(rows)), None, len(rows))
    if function is Function.DURATION:
        spans = [r.span_days for r in rows if r.span_days is not None]
        return Aggregate(function, float(spans[0]) if len(spans) == 1 else None, None, len(spans))
    valued = [(r, v) for r in rows if (v := number_of(r, measure)) is not None]
    if not valued:
        return Aggregate(function, None, measure, 0)
    values = [v for _, v in valued]
    low = min(valued, key=lambda pair: pair[1])[0]
    high = max(valued, key=lambda pair: pair[1])[0]
    if function is Function.SUM:
        total: float | None = round(sum(values), 2)
    elif function is Function.AVERAGE:
        total = round(sum(values) / len(values), 2)
    else:
        total = None
    return Aggregate(function, total, measure, len(values), low, high)


def compare_periods(
    rows: list[Row], comparison: PeriodComparison, measure: Field | None
) -> tuple[Aggregate, Aggregate] | None:
    """The mean of the measure over the rows of each period (local days); None when
    either period has no value (the result does not cover it)."""
    out = []
    for period in (comparison.subject, comparison.reference):
        inside = [r for r in rows if r.days is not None and period.overlaps(*r.days)]
        stats = aggregate(inside, Function.AVERAGE, measure)
        if stats.value is None:
            return None
        out.append(stats)
    return out[0], out[1]


# Yes / no -----------------------------------------------------------------------------------


def _status_fields(table: Table) -> list[Field]:
    return [f for f in table.fields.values() if f.words & _STATUS and f.kind in ("text", "multilingual")]


def _values_text(row: Row, f: Field) -> list[str]:
    value = value_at(row.data, f.path)
    if isinstance(value, list):
        return [w for v in value if isinstance(v, dict) for w in split_words(str(v.get("text", "")))]
    return split_words(str(value)) if value is not None else []


def verdict_of(
    outcome: Outcome, scope: list[Row], terms: Sequence[str], labels: LabelBook, comparisons: list[Comparison]
) -> bool:
    table = outcome.table
    if comparisons:
        return any(all(_meets(r, c, table, labels, terms) for c in comparisons) for r in scope)
    if not scope:
        return False
    first = scope[0]
    flags = fields_named(table, terms, ("bool",))
    if flags:
        return bool(value_at(first.data, flags[0].path))
    statuses = _status_fields(table)
    if statuses:
        row_words = [w for f in statuses for w in _values_text(first, f)]
        named_fields = {w for f in table.fields.values() for w in f.words}
        asked = [t for t in terms if not matches_any(t, named_fields)]
        return any(matches_any(t, row_words) for t in asked)
    numbers = [f for f in fields_named(table, terms, ("number",)) if f in table.numbers()]
    if numbers:
        value = number_of(first, numbers[0])
        return bool(value)
    return True


# The ordinary day a calendar's rows are exceptions to: a working day, a school day, school.
_ORDINARY_DAY = re.compile(
    r"(?<!\w)(?:"
    r"(?:working|work|business|regular|normal|ordinary|usual|school)\s+days?|workdays?|"
    r"(?:is\s+there|have|has|got|go\s+to|at)\s+school(?!\s*(?:holiday|break|vacation))|classes|lessons|"
    r"toopaev\w*|koolipaev\w*|tavaline\s+paev|kool|koolis|kooli\s+(?:minema|minna|vaja)|tunnid|"
    r"рабоч\w*\s+(?:день|дн\w*)|будн\w*|учебн\w*\s+(?:день|дн\w*)|обычн\w*\s+день|"
    r"школ[аеуы]|в\s+школу|уроки|занятия"
    r")(?!\w)"
)


# Words naming a calendar's rows themselves (a holiday, a break, a day off).
_ROW_KIND = re.compile(
    r"(?<!\w)(?:holidays?|breaks?|vacations?|day\s+off|\w*puha\w*|\w*vaheaeg\w*|\w*vaheaja\w*|puhkepaev\w*|"
    r"vaba\s+paev\w*|каникул\w*|праздни\w*|выходн\w*)(?!\w)"
)


# The ordinary day is a weekday in every language asked: work and school are Monday to Friday.
_ORDINARY_WEEKDAYS = frozenset(range(1, 6))


def days_off_the_ordinary_week(shape: AnswerShape) -> list[date]:
    """The single days a question asks about when every one of them falls outside the
    ordinary week (a Saturday, a Sunday; also a weekday the words leave out); [] when any
    falls inside it or no single day is asked. "Is 5 December 2026 a working day",
    "kas 5. detsembril on tööpäev", "5 декабря рабочий день?" alike: a weekend is no
    working day whether or not a row (a holiday) is on it."""
    week = set(_ORDINARY_WEEKDAYS)
    for f in shape.filters:
        if isinstance(f.condition, Weekdays) and not f.negate:
            week &= set(f.condition.days)
    days = [f.condition for f in shape.filters if isinstance(f.condition, DateRange) and not f.negate]
    single = [d.start for d in days if d.start is not None and d.start == d.end]
    if not days or len(single) != len(days):
        return []
    return single if all(day.isoweekday() not in week for day in single) else []


def verdict_without_rows(shape: AnswerShape) -> tuple[bool, list[date]]:
    """The verdict of a yes/no question the result has no row for, and the asked days that
    fall on a weekend: no, unless the question asks about the ordinary day, which no row
    is an exception to ("is there school on 8 December": yes; on a Saturday: no)."""
    if not asks_ordinary_day(shape.question):
        return False, []
    off_week = days_off_the_ordinary_week(shape)
    return not off_week, off_week


def asks_ordinary_day(question: str) -> bool:
    """Whether a yes/no question asks about the ordinary day ("is 24 June a working day",
    "is there school on 30 April", "kas 1. mail on tööpäev", "25 декабря рабочий день?")
    rather than about a row (a holiday, a break) of a calendar."""
    folded = fold(question)
    # "is there school on 3 March or is that during a break?": of two alternatives the
    # first is the one answered (yes or no), whatever the second names.
    first = _ALTERNATIVE.split(folded, maxsplit=1)[0]
    if first != folded and _ORDINARY_DAY.search(first) and not _ROW_KIND.search(first):
        return True
    # "kas 5. märtsil on koolis vaheaeg?": the row itself is named, the question is about it.
    return bool(_ORDINARY_DAY.search(folded)) and not _ROW_KIND.search(folded)


# "… or …" between two alternatives of one yes/no question.
_ALTERNATIVE = re.compile(r"(?:,\s*|\s+)(?:or|voi|või|или|либо)\s+")


# The whole ------------------------------------------------------------------------------------


def answer(
    table: Table,
    shape: AnswerShape,
    labels: LabelBook,
    now: datetime,
    *,
    known_words: frozenset[str] = frozenset(),
    window: DateRange | None = None,
) -> Outcome:
    """`now` is the citizen's local wall time (for "the next"). `known_words` are words
    that say which service or which request (the endpoint's own description, the values
    sent: "riigikogu", "Estonia"): they never pick rows. `window` is the date range the
    call asked for: rows outside it are not what was asked."""
    terms = _terms(shape.terms)
    rows = list(table.rows)
    if window is not None and _judgeable(rows, window):
        rows = [r for r in rows if r.days is None or window.overlaps(*r.days)]
    outcome = Outcome(table, shape, rows, total=len(table.rows), matched=len(rows))
    asked = [f for f in fields_named(table, terms) if f.path not in table.time_paths or _asks_time(terms)]
    field_words = {w for f in asked for w in f.words}
    value_terms = [t for t in terms if not matches_any(t, field_words) and not matches_any(t, known_words)]
    comparisons = [f.condition for f in shape.filters if isinstance(f.condition, Comparison) and not f.negate]
    plain_filters = [
        f for f in shape.filters if not (shape.kind is Kind.YES_NO and f.condition in comparisons)
    ]
    filtered = apply_filters(rows, plain_filters, table, labels, terms)
    if not filtered and table.rows:
        # The nearest row to the period asked, among all the result holds (a yes/no question
        # is fetched with the days after its period: caller_svc.params.looking_ahead).
        undated = [f for f in plain_filters if not isinstance(f.condition, _DAY_CONDITIONS)]
        period = [*plain_filters, RowFilter(window)] if window is not None else plain_filters
        candidates = apply_filters(list(table.rows), undated, table, labels, terms)
        day = _one_day(plain_filters)
        if shape.kind is Kind.YES_NO and day is not None:
            # "Is 24 December a holiday in Germany?": no, and the rows nearest to the day.
            outcome.nearby = nearest_to(candidates, day)[:_MAX_NEARBY_ROWS]
            outcome.nearby_day = day
        found = nearest_outside(candidates, period)
        if found is not None:
            outcome.nearest, outcome.nearest_after = found
            outcome.nearest_run = run_on_from(found[0], candidates, forward=found[1])
    # A yes/no question about a row is answered by its flag, not by dropping the row.
    by_value = (
        value_filter(filtered, table, labels, terms, shape.question)
        if shape.kind is not Kind.YES_NO
        else None
    )
    if by_value is not None and len(by_value) < len(filtered):
        filtered = by_value
        value_terms = []
    # A value that every row has tells none apart: the words may still name rows by text.
    if not any(isinstance(f.condition, TextMatch) for f in shape.filters) and value_terms:
        by_text = text_filter(filtered, table, value_terms)
        if by_text is not None:
            filtered = by_text
    row_words = {w for r in filtered[:50] for w in _row_words(r, table)}
    if _asks_time(terms):
        # "When and at what time": the rows' time fields are asked too.
        asked = [*asked, *(table.fields[p] for p in table.time_paths if table.fields[p] not in asked)]
    outcome.unresolved = tuple(t for t in value_terms if not matches_any(t, row_words))
    outcome.matched = len(filtered)
    outcome.rows = filtered
    selection = shape.selection
    # Words right after "the most", "more than 50": a label may be short ("за", "for").
    measure_terms = _terms(
        [*(selection.terms if selection else ()), *(shape.aggregation.terms if shape.aggregation else ())],
        shortest=2,
    )
    outcome.measure = measure_of(table, [*measure_terms, *terms], labels)
    if shape.period_comparison is not None:
        # The days compared are the periods themselves ("on Friday than tomorrow"): a day
        # filter read from the same words would leave one period without its rows.
        undated = [f for f in plain_filters if not isinstance(f.condition, Weekdays | Months | DateRange)]
        compared = compare_periods(
            apply_filters(rows, undated, table, labels, terms), shape.period_comparison, outcome.measure
        )
        if compared is not None:
            outcome.periods = compared
            outcome.verdict = shape.period_comparison.op.holds(
                compared[0].value or 0.0, compared[1].value or 0.0
            )
            outcome.rows = []
            outcome.narrowed = True
            return outcome
    # The question's own words, short ones too: "for" and "за" name a vote's count.
    margin = (
        _margin_fields(table, _terms(split_words(shape.question) or terms, shortest=2)) if selection else None
    )
    if selection is not None and margin is not None and selection.order in (Order.LOWEST, Order.HIGHEST):
        # "where was the gap between for and against the smallest": rows by the difference
        # of the two numbers named, both shown.
        outcome.order = selection.order
        outcome.rows = select_by_margin(filtered, margin, selection.order, selection.count, selection.skip)
        asked = [*margin, *(f for f in asked if f not in margin)]
    elif selection is not None:
        outcome.order = selection.order
        outcome.rows = select(
            filtered, selection.order, selection.count, selection.skip, outcome.measure, now
        )
    if (asked_aggregate := shape.aggregation) is not None:
        function = asked_aggregate.function
        spans = [r.span_days for r in filtered if r.span_days is not None]
        if function is Function.DURATION and (not spans or max(spans) <= 1):
            # "How many days off in December": single days are counted, they last no longer.
            function = Function.COUNT
            asked_aggregate = replace(asked_aggregate, function=Function.COUNT)
            shape = replace(shape, aggregation=asked_aggregate)
            outcome.shape = shape
        named = [
            f
            for f in fields_named(table, [*asked_aggregate.terms, *terms], ("number",))
            if f in table.numbers()
        ]
        if function is Function.COUNT and named:
            # "how many votes against": the number a field holds, no count of rows.
            asked = [*named, *(f for f in asked if f not in named)]
            outcome.counts_field = True
        else:
            # "the average of the 3 cheapest hours" is over the rows picked; "the average, and
            # the cheapest and dearest hour" over the asked window (one picked row is no aggregate).
            picked = selection is not None and len(outcome.rows) > 1
            outcome.aggregate = aggregate(
                outcome.rows if picked else filtered, function, outcome.measure, now
            )
    outcome.asked = asked
    if comparisons and outcome.measure is not None:
        # The number compared comes first: it is what makes the answer yes or no.
        asked = [outcome.measure, *(f for f in asked if f != outcome.measure)]
        outcome.asked = asked
    if shape.kind is Kind.YES_NO:
        scope = outcome.rows
        # "Was any of the latest votes rejected?", "было что-нибудь не принято?": over
        # several rows, an outcome asked of them is a question whether any row has it.
        having = value_filter(scope, table, labels, terms, shape.question) if not comparisons else None
        if having is not None:
            outcome.verdict = bool(having)
            outcome.rows = having[:_MAX_SHOWN_VERDICT_ROWS]
            outcome.narrowed = True
            outcome.asked = asked
            return outcome
        outcome.verdict = verdict_of(outcome, scope, terms, labels, comparisons)
        if not comparisons and asks_ordinary_day(shape.question):
            # "Is 24 June a working day?", "kas 30. aprillil on kool?": the rows (holidays,
            # breaks) are the exceptions to what is asked; a row on the day says no, and so
            # does a day outside the ordinary week (a Saturday is no working day).
            outcome.off_week = days_off_the_ordinary_week(shape)
            outcome.verdict = not outcome.verdict and not outcome.off_week
        if comparisons and outcome.verdict:
            kept = [r for r in scope if all(_meets(r, c, table, labels, terms) for c in comparisons)]
            outcome.rows = kept[:_MAX_SHOWN_VERDICT_ROWS]
    outcome.narrowed = len(outcome.rows) != len(table.rows)
    # A single object keeps all it says (the asked fields first); a list's rows may be
    # cut to their names and the asked fields.
    outcome.fields_only = (
        bool(asked)
        and not table.single
        and (shape.kind is Kind.FIELDS or (not outcome.unresolved and shape.kind in (Kind.LIST, Kind.YES_NO)))
    )
    outcome.alone = outcome.fields_only and bool(_ONLY.search(fold(shape.question)))
    return outcome


_ONLY = re.compile(r"(?<!\w)(?:only|just|ainult|vaid|только|лишь)(?!\w)")
_TIME_WORDS = frozenset("when date time kuupaev kellaaeg millal kell дата время когда".split())


def _asks_time(terms: Sequence[str]) -> bool:
    return any(fold(t) in _TIME_WORDS or any(words_match(fold(t), w) for w in _TIME_WORDS) for t in terms)
