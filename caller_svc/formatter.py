"""Deterministic natural-language answers from API JSON (the no-LLM path of
the response formatter), in en/et/ru.

Each answer first says what was asked ("Public holidays — Latvia, 1 Jan – 31 Mar
2026:"), then the data with the endpoint's own labels in the reader's language
(unknown keys humanised), localized dates in the configured time zone, numbers
and units. Long lists are summarised: the first items, "and K more", and the
range and average of their main number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from caller_svc.endpoint import ParamSpec
from caller_svc.json_view import (
    humanize_key,
    humanize_name,
    is_date_text,
    is_multilingual,
    is_noise,
    is_number,
    is_scalar,
    item_span,
    item_title,
    number_fields,
)
from caller_svc.labels import NO_LABELS, LabelBook
from caller_svc.locale_format import (
    country_name,
    format_day_with_weekday,
    format_number,
    format_span,
    format_when,
)
from caller_svc.names import NameTranslator, NoTranslations, pick_name
from caller_svc.operations import answer, verdict_without_rows
from caller_svc.refusals import explain
from caller_svc.rows import Row, is_code, locate, parse_day, value_at
from caller_svc.shaped import ShapedWriter, Writers, hours_of, sum_all_text, weekend_lines, window_text
from services.answer_shape import PLAIN, AnswerShape, DateRange, Function, Kind
from services.field_terms import fold, split_words
from services.language import Lang

# Kept importable for callers of the old module.
_CLOCK = re.compile(r"\d\d:\d\d")
__all__ = ["DeterministicFormatter", "ResultToFormat", "format_number", "format_span", "format_when"]

# A question for the weekday of what is shown ("what weekday does it start", "mis
# nädalapäeval see algab", "в какой день недели"), on folded text.
_WEEKDAY_ASKED = re.compile(
    r"(?<!\w)(?:(?:what|which)\s+(?:day\s+of\s+(?:the\s+)?week|weekday)|weekdays?|"
    r"nadalapaev\w*|день\s+недели|дн[яе]\s+недели)(?!\w)"
)


@dataclass(frozen=True)
class ResultToFormat:
    endpoint_name: str
    success: bool
    data: Any = None
    error_message: str | None = None
    # The values the call was made with, by parameter name, and their types.
    params: Mapping[str, str] = field(default_factory=dict)
    param_types: Mapping[str, str] = field(default_factory=dict)
    labels: LabelBook = NO_LABELS
    # What the question asks of the result (the plain answer when nothing).
    shape: AnswerShape = PLAIN
    # Words of the endpoint's own description and labels: they say which service was
    # asked, never which of its rows.
    known_words: frozenset[str] = frozenset()
    # The HTTP status (a 4xx body is explained) and the parameters as the catalogue has them.
    status_code: int = 0
    param_specs: tuple[ParamSpec, ...] = ()
    # What the endpoint does, as the catalogue describes it (for an LLM formatter).
    description: str = ""
    # The rows are the nearest a broader call found, none exactly as asked (near_match).
    near_match: bool = False


_TEXTS: dict[Lang, dict[str, str]] = {
    "en": {
        "found": "{n} results:",
        "found_one": "1 result:",
        "none": "There are none.",
        "near": "Nothing matches exactly what was asked; the nearest match:",
        "more": "…and {n} more.",
        "multi": "Here are the answers to your {n} requests:",
        "yes": "yes",
        "no": "no",
        "empty": "The service returned no data.",
        "result": "Result",
        "range": "{label}: from {low} to {high}, average {avg}",
    },
    "et": {
        "found": "{n} tulemust:",
        "found_one": "1 tulemus:",
        "none": "Tulemusi ei leitud.",
        "near": "Täpselt sellist vastet ei ole; lähim vaste:",
        "more": "…ja veel {n}.",
        "multi": "Siin on vastused teie {n} päringule:",
        "yes": "jah",
        "no": "ei",
        "empty": "Teenus ei tagastanud andmeid.",
        "result": "Päringu tulemus",
        "range": "{label}: {low} kuni {high}, keskmiselt {avg}",
    },
    "ru": {
        "found": "Найдено: {n}.",
        "found_one": "Найдено: 1.",
        "none": "Ничего нет.",
        "near": "Точного совпадения нет; ближайшее найденное:",
        "more": "…и ещё {n}.",
        "multi": "Ответы на ваши запросы ({n}):",
        "yes": "да",
        "no": "нет",
        "empty": "Сервис не вернул данных.",
        "result": "Результат запроса",
        "range": "{label}: от {low} до {high}, в среднем {avg}",
    },
}

_BULLET = "• "
_INDENT = "  "
_MAX_DEPTH = 3
_LANG_SUFFIXES = ("En", "Et", "Ru")
_START_PARAMS = ("from", "start", "begin", "since")
_END_PARAMS = ("to", "end", "until", "till")


def _is_foreign_language_key(key: str, lang: Lang) -> bool:
    """'titleEn' in an Estonian answer: the same field exists in the reader's language or neutral."""
    return key.endswith(_LANG_SUFFIXES) and len(key) > 2 and key[-2:].lower() != lang


def _utc_now() -> datetime:
    return datetime.now(UTC)


class DeterministicFormatter:
    def __init__(
        self,
        max_items: int = 10,
        time_zone: str | None = None,
        *,
        names: NameTranslator | None = None,
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        self._max_items = max_items
        self._zone = ZoneInfo(time_zone) if time_zone else None
        self._names = names or NoTranslations()
        self._clock = clock
        # Set per result while it is written: the country a call was made for, and the
        # fields whose values differ between its rows.
        self._country: str | None = None
        self._varying: set[str] = set()
        self._span_weekdays = False
        # The sums written for the results of one answer (path, value, labels), in order.
        self._sums: list[tuple[str, float, LabelBook]] = []

    def format(self, results: Sequence[ResultToFormat], lang: Lang) -> str:
        self._sums = []
        if len(results) == 1:
            return self._one(results[0], lang)
        sections = [_TEXTS[lang]["multi"].format(n=len(results))]
        for number, result in enumerate(results, start=1):
            sections.append(f"{number}. {self._one(result, lang)}")
        total = self._sum_of_sums(len(results), lang)
        if total:
            sections.append(total)
        return "\n\n".join(sections)

    def _sum_of_sums(self, count: int, lang: Lang) -> str | None:
        """'Total tax for both my cars': every result summed the same number, so their
        sums add up to what was asked."""
        if len(self._sums) != count or len({path for path, _, _ in self._sums}) != 1:
            return None
        path, _, labels = self._sums[0]
        total = round(sum(value for _, value, _ in self._sums), 2)
        return sum_all_text(lang).format(value=self._scalar(path, total, lang, labels))

    # What was asked -----------------------------------------------------------------------------

    @staticmethod
    def _request_words(result: ResultToFormat) -> frozenset[str]:
        """The values the call was made with, and a country code's names in every language."""
        found: set[str] = set()
        for name, value in result.params.items():
            found.update(split_words(value))
            if "country" in name.lower() and len(value.strip()) == 2:
                for lang in ("en", "et", "ru"):
                    found.update(split_words(country_name(value, lang) or ""))
        return frozenset(w for w in found if len(w) >= 3)

    @staticmethod
    def _request_window(result: ResultToFormat) -> DateRange | None:
        """The days a call with a start/end pair of date parameters asked for."""
        start = end = None
        for name, value in result.params.items():
            if result.param_types.get(name) != "date":
                continue
            lowered = name.lower()
            day = parse_day(value.strip())
            if day is None:
                continue
            if start is None and any(lowered.endswith(w) or lowered.startswith(w) for w in _START_PARAMS):
                start = day
            elif end is None and any(lowered.endswith(w) or lowered.startswith(w) for w in _END_PARAMS):
                end = day
        return DateRange(start, end) if start and end and start <= end else None

    @staticmethod
    def _country_of(result: ResultToFormat) -> str | None:
        for name, value in result.params.items():
            if "country" in name.lower() and len(value.strip()) == 2 and country_name(value, "en"):
                return value.strip().upper()
        return None

    def heading(self, result: ResultToFormat, lang: Lang) -> str:
        """'Public holidays — Latvia, 1 Jan – 31 Mar 2026'."""
        title = result.labels.title(lang)
        if not title:
            title = humanize_name(result.endpoint_name) if lang == "en" else _TEXTS[lang]["result"]
        details: list[str] = []
        start = end = None
        for name, value in result.params.items():
            lowered = name.lower()
            kind = result.param_types.get(name, "string")
            if not value or "language" in lowered:
                continue
            if kind in ("date", "datetime") or is_date_text(value):
                if start is None and any(lowered.endswith(w) or lowered.startswith(w) for w in _START_PARAMS):
                    start = value
                    continue
                if end is None and any(lowered.endswith(w) or lowered.startswith(w) for w in _END_PARAMS):
                    end = value
                    continue
                details.append(format_when(value, lang, self._zone))
                continue
            if "country" in lowered and len(value) == 2:
                details.append(country_name(value, lang) or value)
                continue
            label = result.labels.label(name, lang)
            if label:
                details.append(f"{label} {value}")
            elif not value.replace(".", "").isdigit():
                # An unlabelled number ("limit=5") says nothing to the reader.
                details.append(value)
        if start or end:
            details.append(format_span(start or end or "", end if start else None, lang, self._zone))
        return f"{title} — {', '.join(details)}" if details else title

    # The data -----------------------------------------------------------------------------------

    def _one(self, result: ResultToFormat, lang: Lang) -> str:
        text = self._one_result(result, lang)
        # Rows a broader call found, none exactly as asked: said so before them.
        return f"{_TEXTS[lang]['near']}\n{text}" if result.near_match else text

    def _one_result(self, result: ResultToFormat, lang: Lang) -> str:
        texts = _TEXTS[lang]
        self._country = self._country_of(result)
        head = self.heading(result, lang)
        if not result.success:
            if 400 <= result.status_code < 500:
                explained = explain(
                    result.data,
                    result.params,
                    result.param_specs,
                    lang,
                    label=lambda name, lg: result.labels.label(name, lg),
                )
                if explained:
                    return explained
            return f"{head}: {result.error_message or texts['empty']}"
        data = result.data
        if data is None or data == "" or data == {}:
            return f"{head}: {texts['empty']}"
        nothing = data == [] or (isinstance(data, dict) and _empty_collection(data))
        if nothing and result.shape.kind is Kind.YES_NO:
            # "Is 24 December a holiday there?" and no such row: no, and why; "is there
            # school on 8 December?": yes, no break is on it (at the weekend: no).
            verdict, off_week = verdict_without_rows(result.shape)
            weekend = weekend_lines(off_week, lang)
            said = _VERDICT_YES[lang] if verdict else _VERDICT_NO[lang]
            return "\n".join([f"{said} {head}:", *weekend]) if weekend else f"{said} {head}: {texts['none']}"
        if isinstance(data, dict) and _empty_collection(data):
            # {"count": 0, "addresses": []}: nothing was found, whatever else it says.
            return f"{head}: {texts['none']}"
        shaped = self._shaped(result, head, lang)
        if shaped is not None:
            return shaped
        if isinstance(data, list):
            if not data:
                return f"{head}: {texts['none']}"
            count = texts["found_one"] if len(data) == 1 else texts["found"].format(n=len(data))
            return "\n".join([f"{head}. {count}", *self._list_lines(data, "", lang, result.labels, 0)])
        if isinstance(data, dict):
            return "\n".join([f"{head}:", *self._object_lines(data, "", lang, result.labels, 0)])
        return f"{head}: {self._scalar('', data, lang, result.labels)}"

    # Shaped answers ------------------------------------------------------------------------------

    def _shaped(self, result: ResultToFormat, head: str, lang: Lang) -> str | None:
        """The answer the question's shape asks for; None for a plain question about a
        result that is no series (the plain rendering below answers it)."""
        if self._zone is None:
            zone = ZoneInfo("UTC")
        else:
            zone = self._zone
        table = locate(result.data, result.labels, zone)
        if table is None or not table.rows:
            return None
        shape = result.shape
        if shape.is_plain and table.step is None:
            return None
        now = self._clock().astimezone(zone).replace(tzinfo=None)
        outcome = answer(
            table,
            shape,
            result.labels,
            now,
            known_words=result.known_words | self._request_words(result),
            window=self._request_window(result),
        )
        labels = result.labels
        self._varying = _varying_keys([r.data for r in table.rows])
        # "mis nädalapäeval see algab?": a span's days are shown with their weekdays.
        self._span_weekdays = bool(_WEEKDAY_ASKED.search(fold(shape.question or "")))
        writers = Writers(
            scalar=lambda path, value, lg: self._scalar(path, value, lg, labels),
            item=lambda row, lg, asked, alone=False: self._row_line(
                row, table.path, lg, labels, [f.path for f in asked], alone=alone
            ),
            label=lambda path, key, lg: self._field_label(path, key, lg, labels),
        )
        writer = ShapedWriter(writers, labels, self._max_items)
        lines = writer.lines(outcome, lang)
        agg = outcome.aggregate
        if agg is not None and agg.function is Function.SUM and agg.value is not None and agg.measure:
            self._sums.append((agg.measure.path, agg.value, labels))
        hours = hours_of(outcome)
        if hours is not None and not _CLOCK.search(head):
            # A request for those hours already names them in the heading.
            head = f"{head}, {window_text(hours)}"
        verdict = writer.verdict(outcome, lang)
        if verdict is not None:
            # The verdict opens the answer; the fact that makes it so follows.
            head = f"{verdict} {head}"
        return "\n".join([f"{head}:", *lines]) if lines else f"{head}."

    def _row_line(
        self, row: Row, path: str, lang: Lang, labels: LabelBook, asked: list[str], *, alone: bool = False
    ) -> str:
        """One row: its usual line, then the asked fields (with their labels); `alone`:
        only its name and day of the usual line, then the asked fields."""
        line = self._item_line(
            row.data, path, lang, labels, self._varying, day=row.day, weekday=True, measures=not alone
        )
        if not asked:
            return line
        parts = []
        for field_path in asked:
            value = value_at(row.data, field_path)
            if value is None or (
                is_code(value, field_path) and labels.value(field_path, str(value), lang) is None
            ):
                continue
            full = f"{path}.{field_path}" if path else field_path
            label = self._field_label(full, field_path.rsplit(".", 1)[-1], lang, labels)
            text = self._scalar(full, value, lang, labels, day=row.day)
            part = f"{label.lower() if lang == 'en' else label}: {text}" if label else text
            if part.lower() not in line.lower():
                parts.append(part)
        return f"{line} — {', '.join(parts)}" if parts else line

    def _field_label(self, path: str, key: str, lang: Lang, labels: LabelBook) -> str | None:
        """The endpoint's label; an English reader may get the key made readable, an
        Estonian or Russian one never an English field name (the value goes alone)."""
        return labels.label(path, lang) or (humanize_key(key) if lang == "en" else None)

    def _label(self, path: str, key: str, lang: Lang, labels: LabelBook) -> str:
        return self._field_label(path, key, lang, labels) or ""

    def _name(self, value: list[dict[str, Any]], lang: Lang, day: date | None = None) -> str:
        return pick_name(value, lang, self._names, country=self._country, day=day)

    def _scalar(self, path: str, value: Any, lang: Lang, labels: LabelBook, day: date | None = None) -> str:
        texts = _TEXTS[lang]
        if is_multilingual(value):
            return self._name(value, lang, day)
        unit = labels.unit(path, lang) if path else None
        if isinstance(value, bool):
            return texts["yes"] if value else texts["no"]
        if is_number(value):
            number = format_number(value, lang)
            return f"{number} {unit}" if unit and unit != "%" else f"{number}{unit or ''}"
        if value is None:
            return "—"
        text = str(value).strip()
        if path:
            named = labels.value(path, text, lang)
            if named:
                return named
        if is_date_text(text):
            return format_when(text, lang, self._zone)
        return text

    def _object_lines(
        self, obj: dict[str, Any], path: str, lang: Lang, labels: LabelBook, depth: int
    ) -> list[str]:
        pad = _INDENT * depth
        lines: list[str] = []
        for key, value in obj.items():
            if is_noise(key) or _is_foreign_language_key(key, lang):
                continue
            inner_path = f"{path}.{key}" if path else key
            label = self._label(inner_path, key, lang, labels)
            if is_code(value, inner_path) and labels.value(inner_path, str(value), lang) is None:
                continue  # a machine code ("ready_for_pickup") is no answer
            if is_multilingual(value) or is_scalar(value):
                text = self._scalar(inner_path, value, lang, labels)
                lines.append(f"{pad}{label}: {text}" if label else f"{pad}{text}")
            elif isinstance(value, dict):
                if depth >= _MAX_DEPTH:
                    continue
                if len(value) == 1 and isinstance(next(iter(value.values())), list):
                    # {"data": {"ee": [...]}}: one wrapper, one heading.
                    inner_list = next(iter(value.values()))
                    lines.extend(
                        self._object_lines({key: inner_list}, path, lang, labels, depth) if inner_list else []
                    )
                    continue
                inner = self._object_lines(value, inner_path, lang, labels, depth + 1)
                if inner:
                    lines.extend([f"{pad}{label}:", *inner] if label else inner)
            elif isinstance(value, list):
                if not value:
                    lines.append(f"{pad}{label}: —" if label else f"{pad}—")
                elif all(is_scalar(v) for v in value):
                    shown = ", ".join(
                        self._scalar(inner_path, v, lang, labels) for v in value[: self._max_items]
                    )
                    more = self._more(len(value), lang, inline=True)
                    lines.append(f"{pad}{label}: {shown}{more}" if label else f"{pad}{shown}{more}")
                elif depth < _MAX_DEPTH:
                    inner_lines = self._list_lines(value, inner_path, lang, labels, depth + 1)
                    lines.extend([f"{pad}{label}:", *inner_lines] if label else inner_lines)
        return lines

    def _list_lines(
        self, items: list[Any], path: str, lang: Lang, labels: LabelBook, depth: int
    ) -> list[str]:
        pad = _INDENT * max(0, depth - 1) if depth else ""
        varying = _varying_keys(items)
        # "…and 2 more" helps nobody: lists up to half again the cap are shown whole.
        shown = items if len(items) <= self._max_items * 3 // 2 else items[: self._max_items]
        lines = [f"{pad}{_BULLET}{self._item_line(item, path, lang, labels, varying)}" for item in shown]
        if len(shown) < len(items):
            lines.append(f"{pad}{self._more(len(items), lang, inline=False)}")
            summary = self._range_line(items, path, lang, labels)
            if summary:
                lines.append(f"{pad}{summary}")
        return lines

    def _range_line(self, items: list[Any], path: str, lang: Lang, labels: LabelBook) -> str | None:
        """For long lists: the range and average of the items' first number."""
        dicts = [item for item in items if isinstance(item, dict)]
        if not dicts:
            return None
        first = number_fields(dicts[0], limit=1)
        if not first:
            return None
        key = first[0][0]
        values = [item[key] for item in dicts if is_number(item.get(key))]
        if len(values) < 2:
            return None
        item_path = f"{path}.{key}" if path else key

        def shown(value: float | int) -> str:
            return self._scalar(item_path, value, lang, labels)

        return _TEXTS[lang]["range"].format(
            label=self._label(item_path, key, lang, labels),
            low=shown(min(values)),
            high=shown(max(values)),
            avg=shown(round(sum(values) / len(values), 2)),
        )

    def _more(self, total: int, lang: Lang, *, inline: bool) -> str:
        hidden = total - self._max_items
        if hidden <= 0:
            return ""
        text = _TEXTS[lang]["more"].format(n=hidden)
        return f" {text}" if inline else text

    def _item_line(
        self,
        item: Any,
        path: str,
        lang: Lang,
        labels: LabelBook,
        varying: set[str],
        day: date | None = None,
        *,
        weekday: bool = False,
        measures: bool = True,
    ) -> str:
        """The row's name, its day, and (with `measures`) its numbers and the flags that
        differ between rows."""
        if not isinstance(item, dict):
            return self._scalar(path, item, lang, labels) if is_scalar(item) else str(item)
        parts: list[str] = []
        span = item_span(item)
        if day is None and span:
            day = parse_day(span[0])
        title = item_title(item, lang)
        if title:
            raw_title = item.get(title[0])
            parts.append(
                self._name(raw_title, lang, day)
                if isinstance(raw_title, list) and is_multilingual(raw_title)
                else title[1]
            )
        if span:
            single = parse_day(span[0]) if (span[1] in (None, span[0]) and len(span[0]) == 10) else None
            if weekday and single is not None:
                # "Thursday, 24 Dec 2026": the day of the week is what a citizen plans by,
                # with the item's own clock time when it has one ("… 18 Feb 2026 14:12").
                clock = next((v for v in item.values() if isinstance(v, str) and _CLOCK_TEXT.match(v)), None)
                shown_day = format_day_with_weekday(single, lang)
                parts.append(f"{shown_day} {clock}" if clock else shown_day)
            elif weekday and self._span_weekdays and len(span[0]) == 10 and span[1]:
                first, last = parse_day(span[0]), parse_day(span[1][:10])
                parts.append(
                    f"{format_day_with_weekday(first, lang)} – {format_day_with_weekday(last, lang)}"
                    if first is not None and last is not None
                    else format_span(span[0], span[1], lang, self._zone)
                )
            else:
                parts.append(format_span(span[0], span[1], lang, self._zone))
        # Up to four measures; an ordinal (a voting's number) takes no measure's place, so a
        # vote's line keeps for, against, abstained and absent.
        if not measures and parts:
            return " — ".join(parts)
        numbers = []
        counted = 0
        for k, v in number_fields(item, limit=_LINE_MEASURES * 2):
            if k == "timestamp" or (not _is_ordinal(k, v) and counted >= _LINE_MEASURES):
                continue
            counted += 0 if _is_ordinal(k, v) else 1
            numbers.append((k, v))
        if numbers:
            parts.append(
                ", ".join(
                    f"{self._label(f'{path}.{k}' if path else k, k, lang, labels).lower()} "
                    f"{self._scalar(f'{path}.{k}' if path else k, v, lang, labels)}".strip()
                    for k, v in numbers
                    if not _is_ordinal(k, v) or labels.label(f"{path}.{k}" if path else k, lang)
                )
            )
        # Flags and categories that differ between items say something about each one.
        for key in sorted(varying):
            value = item.get(key)
            if key == (title[0] if title else None) or is_noise(key) or _is_foreign_language_key(key, lang):
                continue
            if isinstance(value, bool) or (
                isinstance(value, str) and not is_date_text(value) and len(value) <= 40
            ):
                key_path = f"{path}.{key}" if path else key
                if isinstance(value, str) and labels.value(key_path, value, lang) is None:
                    continue
                label = self._label(key_path, key, lang, labels).lower()
                text = self._scalar(key_path, value, lang, labels)
                parts.append(f"{label}: {text}" if label else text)
        if not parts:
            shown = [
                (k, v)
                for k, v in item.items()
                if is_scalar(v)
                and not is_noise(k)
                and not (is_code(v, k) and labels.value(k, str(v), lang) is None)
            ][:3]
            pieces = []
            for k, v in shown:
                key_path = f"{path}.{k}" if path else k
                label = self._label(key_path, k, lang, labels)
                text = self._scalar(key_path, v, lang, labels)
                pieces.append(f"{label}: {text}" if label else text)
            parts.append(", ".join(pieces))
        return " — ".join(p for p in parts if p)


_CLOCK_TEXT = re.compile(r"^(?:[01]\d|2[0-3]):[0-5]\d$")
_VERDICT_NO: dict[Lang, str] = {"en": "No.", "et": "Ei.", "ru": "Нет."}
_VERDICT_YES: dict[Lang, str] = {"en": "Yes.", "et": "Jah.", "ru": "Да."}


def _empty_collection(data: dict[str, Any]) -> bool:
    """An object whose only list of items is empty (a search that found nothing)."""
    lists = [v for v in data.values() if isinstance(v, list) and not is_multilingual(v)]
    return len(lists) == 1 and not lists[0] and not any(isinstance(v, dict) for v in data.values())


_LINE_MEASURES = 4


def _is_ordinal(key: str, value: Any) -> bool:
    return "number" in key.lower() and isinstance(value, int)


def _varying_keys(items: list[Any]) -> set[str]:
    """Scalar keys whose value is not the same in every item (bools and enum-like text)."""
    dicts = [item for item in items if isinstance(item, dict)]
    if len(dicts) < 2:
        return set()
    seen: dict[str, set[str]] = {}
    for item in dicts:
        for key, value in item.items():
            if isinstance(value, bool | str):
                seen.setdefault(key, set()).add(repr(value))
    return {key for key, values in seen.items() if 1 < len(values) <= max(2, len(dicts) // 2)}
