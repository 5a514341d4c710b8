"""Answers that fit the question's shape: the outcome of the answer operations
(caller_svc.operations) written out in en/et/ru — the verdict first for a yes/no
question, exactly the rows selected, an extreme with its time and value, an
aggregate over the asked window, the asked fields first (or alone), every row of a
full list on one compact line each. Times are the citizen's local ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from caller_svc.labels import LabelBook
from caller_svc.locale_format import format_day, format_day_with_weekday, format_number
from caller_svc.operations import Aggregate, Outcome
from caller_svc.rows import Field, Row, Table, is_code, value_at
from services.answer_shape import DateRange, Function, Hours, Kind
from services.language import Lang

_TEXTS: dict[Lang, dict[str, str]] = {
    "en": {
        "yes": "Yes.",
        "no": "No.",
        "none": "There are none.",
        "none_matching": "None of the {n} results match.",
        "count": "{n} in total.",
        "count_one": "1 in total.",
        "average": "Average {label}: {value}",
        "sum": "Total {label}: {value}",
        "sum_all": "All together: {value}",
        "range": "{label}: from {low} to {high}",
        "lowest": "Lowest: {value}",
        "highest": "Highest: {value}",
        "duration": "{n} days",
        "duration_one": "1 day",
        "days_until": "{n} days to go.",
        "days_until_one": "1 day to go.",
        "days_until_none": "It begins today.",
        "over": "over {n} values",
        "more": "…and {n} more (ask for all of them to see every one).",
        "at": "at",
        "hours": "{start}–{end}",
        "shown_of": "{n} of {total}:",
        "found": "{n} results:",
        "period_average": "{period}: average {label} {value}",
        "period_difference": "Difference: {value}",
        "nearest_before": "There are none in that period. The latest before it is from {day}:",
        "nearest_after": "There are none in that period. The first after it is from {day}:",
        "weekend": "{day} is at the weekend.",
        "nearby": "None on {day}. The nearest:",
    },
    "et": {
        "yes": "Jah.",
        "no": "Ei.",
        "none": "Tulemusi ei leitud.",
        "none_matching": "Ükski {n} tulemusest ei sobi.",
        "count": "Kokku {n}.",
        "count_one": "Kokku 1.",
        "average": "{label} keskmiselt: {value}",
        "sum": "{label} kokku: {value}",
        "sum_all": "Kõik kokku: {value}",
        "range": "{label}: {low} kuni {high}",
        "lowest": "Madalaim: {value}",
        "highest": "Kõrgeim: {value}",
        "duration": "{n} päeva",
        "duration_one": "1 päev",
        "days_until": "Jäänud on {n} päeva.",
        "days_until_one": "Jäänud on 1 päev.",
        "days_until_none": "See algab täna.",
        "over": "{n} väärtuse põhjal",
        "more": "…ja veel {n} (küsi kõiki, et näha kõiki).",
        "at": "kell",
        "hours": "{start}–{end}",
        "shown_of": "{n} / {total}:",
        "found": "{n} tulemust:",
        "period_average": "{period}: {label} keskmiselt {value}",
        "period_difference": "Vahe: {value}",
        "nearest_before": "Sel perioodil pole ühtegi. Viimane enne seda on {day}:",
        "nearest_after": "Sel perioodil pole ühtegi. Esimene pärast seda on {day}:",
        "weekend": "{day} on nädalavahetusel.",
        "nearby": "Kuupäeval {day} pole ühtegi. Lähimad:",
    },
    "ru": {
        "yes": "Да.",
        "no": "Нет.",
        "none": "Ничего нет.",
        "none_matching": "Ни один из {n} результатов не подходит.",
        "count": "Всего: {n}.",
        "count_one": "Всего: 1.",
        "average": "{label} в среднем: {value}",
        "sum": "{label} всего: {value}",
        "sum_all": "Всё вместе: {value}",
        "range": "{label}: от {low} до {high}",
        "lowest": "Самое низкое значение: {value}",
        "highest": "Самое высокое значение: {value}",
        "duration": "{n} {days}",
        "duration_one": "1 день",
        "days_until": "Осталось {n} {days}.",
        "days_until_one": "Остался 1 день.",
        "days_until_none": "Начинается сегодня.",
        "over": "по {n} значениям",
        "more": "…и ещё {n} (попросите показать все, чтобы увидеть их).",
        "at": "в",
        "hours": "{start}–{end}",
        "shown_of": "{n} из {total}:",
        "found": "Найдено: {n}.",
        "period_average": "{period}: {label} в среднем {value}",
        "period_difference": "Разница: {value}",
        "nearest_before": "За этот период ничего нет. Последнее до него — {day}:",
        "nearest_after": "За этот период ничего нет. Первое после него — {day}:",
        "weekend": "{day} приходится на выходные.",
        "nearby": "На {day} ничего нет. Ближайшие:",
    },
}
_BULLET = "• "


def weekend_lines(days: list[date], lang: Lang) -> list[str]:
    """'Saturday, 5 Dec 2026 is at the weekend.' for each asked day that is."""
    said = _TEXTS[lang]["weekend"]
    return [said.format(day=format_day_with_weekday(d, lang)) for d in days if d.isoweekday() >= 6]


def _ru_days(n: int) -> str:
    if n % 10 == 1 and n % 100 != 11:
        return "день"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "дня"
    return "дней"


@dataclass(frozen=True)
class Writers:
    """How the formatter writes one scalar, one item and a label (its own rules), so
    shaped answers read exactly like plain ones."""

    scalar: Callable[[str, Any, Lang], str]
    # One row with the asked fields; `alone`: only its name, its day and those fields.
    item: Callable[..., str]
    label: Callable[[str, str, Lang], str | None]


class ShapedWriter:
    def __init__(self, writers: Writers, labels: LabelBook, max_items: int) -> None:
        self._w = writers
        self._labels = labels
        self._max_items = max_items

    def verdict(self, outcome: Outcome, lang: Lang) -> str | None:
        """'Yes.' / 'Jah.' / 'Нет.' for a yes/no question: the answer's first word."""
        if outcome.verdict is None:
            return None
        return _TEXTS[lang]["yes"] if outcome.verdict else _TEXTS[lang]["no"]

    def lines(self, outcome: Outcome, lang: Lang) -> list[str]:
        texts = _TEXTS[lang]
        shape = outcome.shape
        table = outcome.table
        out: list[str] = []
        if outcome.periods is not None and shape.period_comparison is not None:
            # "Is it cheaper tomorrow than today?": each period's mean, the asked one first.
            # after the period and its colon: "вторник, 1 декабря 2026: цена в среднем …"
            label = self._measure_label(outcome.periods[0].measure, lang).lower()
            for stats, period in zip(
                outcome.periods,
                (shape.period_comparison.subject, shape.period_comparison.reference),
                strict=True,
            ):
                value = self._scalar(stats.measure, stats.value or 0.0, lang)
                out.append(
                    texts["period_average"].format(period=_period(period, lang), label=label, value=value)
                )
            # "How much cheaper is today?": how far apart the two means are.
            first, second = (stats.value or 0.0 for stats in outcome.periods)
            gap = round(abs(first - second), 2)
            out.append(
                texts["period_difference"].format(value=self._scalar(outcome.periods[0].measure, gap, lang))
            )
            return out
        if outcome.aggregate is not None:
            lines = self._aggregate(outcome.aggregate, outcome, lang)
            out.extend(lines)
            if outcome.aggregate.function in (Function.AVERAGE, Function.SUM, Function.RANGE):
                if not lines:
                    out.append(
                        texts["none_matching"].format(n=outcome.total) if outcome.total else texts["none"]
                    )
                return out
        if not outcome.rows and (weekend := weekend_lines(outcome.off_week, lang)):
            # "Is 5 December a working day?" on a Saturday: no, and why.
            return [*out, *weekend]
        if not outcome.rows:
            nearest = outcome.nearest
            if outcome.nearby and outcome.nearby_day is not None:
                # "Is 24 December a holiday there?": none on the day, and the nearest ones.
                out.append(texts["nearby"].format(day=format_day(outcome.nearby_day, lang)))
                out.extend(_BULLET + self._w.item(row, lang, []) for row in outcome.nearby)
            elif nearest is not None and nearest.day is not None:
                # "Votes last week?" when the record ends earlier: none, and when the nearest was.
                key = "nearest_after" if outcome.nearest_after else "nearest_before"
                run = outcome.nearest_run
                shown = [nearest, *run] if outcome.nearest_after else [*run, nearest]
                first_day = shown[0].day if outcome.nearest_after else nearest.day
                out.append(texts[key].format(day=format_day(first_day or nearest.day, lang)))
                out.extend(_BULLET + self._w.item(r, lang, []) for r in shown)
            elif outcome.verdict is None or outcome.verdict:
                out.append(texts["none_matching"].format(n=outcome.total) if outcome.total else texts["none"])
            return out
        if (
            shape.aggregation is not None
            and shape.aggregation.function is Function.COUNT
            and not outcome.counts_field
        ):
            # The rows counted, also where the words name one of their fields ("how many of
            # the last ten votes failed": "votes" names the voting's number).
            n = len(outcome.rows)
            out.append(texts["count_one"] if n == 1 else texts["count"].format(n=n))
        rows = outcome.rows
        limit = self._limit(outcome)
        shown = rows if limit is None else rows[:limit]
        series = table.step is not None and outcome.measure is not None
        for row in shown:
            if series and not outcome.fields_only:
                out.append(_BULLET + self._series_line(row, outcome, lang))
            elif table.single:
                out.extend(self._object_lines(row, outcome, lang))
            else:
                # Only the fields asked ("just the postal code"): the row's name, day and them.
                alone = outcome.alone and bool(outcome.asked)
                out.append(_BULLET + self._w.item(row, lang, outcome.asked or [], alone=alone))
        if len(shown) < len(rows):
            out.append(texts["more"].format(n=len(rows) - len(shown)))
        if series and len(rows) > 3 and shape.kind in (Kind.LIST, Kind.FULL_LIST) and shape.selection is None:
            out.extend(self._series_summary(rows, outcome, lang))
        return out

    def _limit(self, outcome: Outcome) -> int | None:
        kind = outcome.shape.kind
        if kind is Kind.FULL_LIST or outcome.shape.selection is not None:
            return None
        if len(outcome.rows) <= self._max_items * 3 // 2:
            return None
        return self._max_items

    # Pieces --------------------------------------------------------------------------------

    def _when(self, row: Row, table: Table, lang: Lang, many_days: bool) -> str:
        if row.moment is not None:
            clock = f"{row.moment:%H:%M}"
            if table.step is not None and table.step <= timedelta(hours=1):
                clock = _TEXTS[lang]["hours"].format(start=clock, end=f"{row.moment + table.step:%H:%M}")
            if many_days:
                return f"{format_day_with_weekday(row.moment.date(), lang)} {_TEXTS[lang]['at']} {clock}"
            return clock
        if row.day is not None:
            if row.last_day and row.last_day != row.day:
                return f"{format_day(row.day, lang)} – {format_day(row.last_day, lang)}"
            return format_day_with_weekday(row.day, lang)
        return ""

    def _value(self, row: Row, measure: Field | None, lang: Lang) -> str:
        if measure is None:
            return ""
        value = value_at(row.data, measure.path)
        return self._w.scalar(measure.path, value, lang) if value is not None else ""

    def _series_line(self, row: Row, outcome: Outcome, lang: Lang) -> str:
        when = self._when(row, outcome.table, lang, _many_days(outcome.table))
        value = self._value(row, outcome.measure, lang)
        return f"{when} — {value}" if when and value else when or value

    def _series_summary(self, rows: list[Row], outcome: Outcome, lang: Lang) -> list[str]:
        from caller_svc.operations import aggregate

        stats = aggregate(rows, Function.AVERAGE, outcome.measure)
        if stats.value is None or stats.low is None or stats.high is None:
            return []
        texts = _TEXTS[lang]
        many_days = _many_days(outcome.table)
        label = self._measure_label(outcome.measure, lang)
        average = texts["average"].format(label=label, value=self._scalar(outcome.measure, stats.value, lang))
        low = self._at(stats.low, outcome.measure, outcome.table, lang, many_days)
        high = self._at(stats.high, outcome.measure, outcome.table, lang, many_days)
        return [average, texts["lowest"].format(value=low), texts["highest"].format(value=high)]

    def _at(self, row: Row, measure: Field | None, table: Table, lang: Lang, many_days: bool) -> str:
        """'37.49 €/MWh (04:00–05:00)': a value with its time."""
        when = self._when(row, table, lang, many_days)
        value = self._value(row, measure, lang)
        return f"{value} ({when})" if when else value

    def _scalar(self, measure: Field | None, value: float, lang: Lang) -> str:
        if measure is None:
            return format_number(value, lang)
        return self._w.scalar(measure.path, value, lang)

    def _measure_label(self, measure: Field | None, lang: Lang) -> str:
        if measure is None:
            return ""
        label = self._w.label(measure.path, measure.key, lang) or ""
        return label.lower() if lang == "en" else label

    def _aggregate(self, agg: Aggregate, outcome: Outcome, lang: Lang) -> list[str]:
        texts = _TEXTS[lang]
        label = self._measure_label(agg.measure, lang)
        if agg.function is Function.DAYS_UNTIL:
            if agg.value is None:
                return []
            n = int(agg.value)
            if n == 0:
                return [texts["days_until_none"]]
            return [texts["days_until_one" if n == 1 else "days_until"].format(n=n, days=_ru_days(n))]
        if agg.function is Function.DURATION:
            if agg.value is None:
                return []
            n = int(agg.value)
            if n == 1:
                return [texts["duration_one"]]
            return [texts["duration"].format(n=n, days=_ru_days(n))]
        if agg.function is Function.COUNT:
            return []
        if agg.value is None and agg.function is not Function.RANGE:
            return []
        many_days = _many_days(outcome.table)
        if agg.function is Function.RANGE:
            if agg.low is None or agg.high is None:
                return []
            if outcome.table.step is None:
                # Rows that are no series ("the most and the fewest votes against"): each end
                # is a row of its own, said whole, its number first.
                asked = [agg.measure] if agg.measure is not None else []
                return [
                    texts[key].format(value=self._w.item(row, lang, asked))
                    for key, row in (("lowest", agg.low), ("highest", agg.high))
                ]
            low = self._value(agg.low, agg.measure, lang)
            high = self._value(agg.high, agg.measure, lang)
            when_low = self._when(agg.low, outcome.table, lang, many_days)
            when_high = self._when(agg.high, outcome.table, lang, many_days)
            return [
                texts["range"].format(
                    label=label[:1].upper() + label[1:],
                    low=f"{low} ({when_low})" if when_low else low,
                    high=f"{high} ({when_high})" if when_high else high,
                )
            ]
        key = "average" if agg.function is Function.AVERAGE else "sum"
        value = self._scalar(agg.measure, agg.value or 0.0, lang)
        line = texts[key].format(label=label, value=value)
        line = line[:1].upper() + line[1:]
        if agg.count > 1 and outcome.table.step is not None:
            line += f" ({texts['over'].format(n=agg.count)})"
        lines = [line]
        if agg.low is not None and agg.high is not None and outcome.table.step is not None:
            lines.append(
                texts["lowest"].format(value=self._at(agg.low, agg.measure, outcome.table, lang, many_days))
            )
            lines.append(
                texts["highest"].format(value=self._at(agg.high, agg.measure, outcome.table, lang, many_days))
            )
        return lines

    def _object_lines(self, row: Row, outcome: Outcome, lang: Lang) -> list[str]:
        """A single object: the asked fields first, then (unless only they were asked) the rest."""
        shown: list[str] = []
        asked_paths = [f.path for f in outcome.asked]
        rest = [p for p in outcome.table.fields if p not in asked_paths]
        for path in [*asked_paths, *([] if outcome.fields_only else rest)]:
            value = value_at(row.data, path)
            if value is None or (is_code(value, path) and self._labels.value(path, str(value), lang) is None):
                continue
            f = outcome.table.fields[path]
            text = self._w.scalar(path, value, lang)
            label = self._w.label(path, f.key, lang)
            shown.append(f"{label}: {text}" if label else text)
        return shown


def sum_all_text(lang: Lang) -> str:
    """'All together: {value}': the total of the totals of several results."""
    return _TEXTS[lang]["sum_all"]


def hours_of(outcome: Outcome) -> Hours | None:
    for row_filter in outcome.shape.filters:
        c = row_filter.condition
        if isinstance(c, Hours) and not row_filter.negate and (c.start, c.end % 24) != (0, 0):
            return c  # the whole day (0–24, "that whole day") is no window to name
    return None


def window_text(hours: Hours) -> str:
    return f"{hours.start:02d}:00–{hours.end % 24:02d}:00"


__all__ = ["ShapedWriter", "Writers", "hours_of", "sum_all_text", "window_text"]


def _period(period: DateRange, lang: Lang) -> str:
    if period.start is None or period.end is None:
        return ""
    if period.start == period.end:
        return format_day_with_weekday(period.start, lang)
    return f"{format_day(period.start, lang)} – {format_day(period.end, lang)}"


def _many_days(table: Table) -> bool:
    """Whether the answer's rows come from more than one day: then every time named
    carries its date ("the dearest hour next week" is on a day, not only at 20:00), also
    when only one row is shown."""
    return len({r.moment.date() if r.moment is not None else r.day for r in table.rows} - {None}) > 1
