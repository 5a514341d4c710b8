"""Deterministic natural-language answers from API JSON (the no-LLM path of
the response formatter), in en/et/ru, and their split into stream tokens.

Lists of objects become bullets (the item's name in the user's language, its
dates, its key numbers); single objects become "Label: value" lines; several
results get one section each; failed calls get their localized error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

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
    pick_language,
)
from services.language import Lang


@dataclass(frozen=True)
class ResultToFormat:
    endpoint_name: str
    success: bool
    data: Any = None
    error_message: str | None = None


_TEXTS: dict[Lang, dict[str, str]] = {
    "en": {
        "intro": "Here is what I found:",
        "found": "I found {n} results:",
        "found_one": "I found 1 result:",
        "none": "No results were found.",
        "more": "…and {n} more.",
        "multi": "Here are the results of your {n} requests:",
        "yes": "yes",
        "no": "no",
        "empty": "The service returned no data.",
    },
    "et": {
        "intro": "Leidsin järgmise teabe:",
        "found": "Leidsin {n} tulemust:",
        "found_one": "Leidsin 1 tulemuse:",
        "none": "Tulemusi ei leitud.",
        "more": "…ja veel {n}.",
        "multi": "Siin on teie {n} päringu tulemused:",
        "yes": "jah",
        "no": "ei",
        "empty": "Teenus ei tagastanud andmeid.",
    },
    "ru": {
        "intro": "Вот что удалось найти:",
        "found": "Найдено результатов: {n}.",
        "found_one": "Найден 1 результат:",
        "none": "Ничего не найдено.",
        "more": "…и ещё {n}.",
        "multi": "Результаты ваших запросов ({n}):",
        "yes": "да",
        "no": "нет",
        "empty": "Сервис не вернул данных.",
    },
}

_MONTHS: dict[Lang, list[str]] = {
    "en": ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
    "et": ["jaanuar", "veebruar", "märts", "aprill", "mai", "juuni", "juuli", "august", "september",
           "oktoober", "november", "detsember"],
    "ru": ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября",
           "ноября", "декабря"],
}  # fmt: skip

_BULLET = "• "
_INDENT = "  "
_MAX_DEPTH = 3


def format_day(day: date, lang: Lang) -> str:
    month = _MONTHS[lang][day.month - 1]
    if lang == "et":
        return f"{day.day}. {month} {day.year}"
    return f"{day.day} {month} {day.year}"


def format_when(text: str, lang: Lang) -> str:
    """'2026-01-01' → '1 Jan 2026'; '2026-01-01T18:00:00Z' → '1 Jan 2026, 18:00 UTC'."""
    try:
        if len(text) == 10:
            return format_day(date.fromisoformat(text), lang)
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    zone = " UTC" if text.endswith("Z") or text.endswith("+00:00") else ""
    return f"{format_day(moment.date(), lang)}, {moment:%H:%M}{zone}"


def format_span(start: str, end: str | None, lang: Lang) -> str:
    if not end or end == start:
        return format_when(start, lang)
    return f"{format_when(start, lang)} – {format_when(end, lang)}"


def format_number(value: float | int, lang: Lang) -> str:
    if isinstance(value, float):
        # Money and prices need two decimals, coordinates and small rates need four.
        decimals = 2 if abs(value) >= 100 else 4
        text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    else:
        text = str(value)
    return text.replace(".", ",") if lang in ("et", "ru") else text


class DeterministicFormatter:
    def __init__(self, max_items: int = 20) -> None:
        self._max_items = max_items

    def format(self, results: Sequence[ResultToFormat], lang: Lang) -> str:
        texts = _TEXTS[lang]
        if len(results) == 1:
            return self._one(results[0], lang, with_intro=True)
        sections = [texts["multi"].format(n=len(results))]
        for number, result in enumerate(results, start=1):
            body = self._one(result, lang, with_intro=False)
            sections.append(f"{number}. {humanize_name(result.endpoint_name)}:\n{body}")
        return "\n\n".join(sections)

    def _one(self, result: ResultToFormat, lang: Lang, *, with_intro: bool) -> str:
        texts = _TEXTS[lang]
        if not result.success:
            return result.error_message or texts["empty"]
        data = result.data
        if data is None or data == "" or data == {}:
            return texts["empty"]
        if isinstance(data, list):
            if not data:
                return texts["none"]
            count = texts["found_one"] if len(data) == 1 else texts["found"].format(n=len(data))
            return "\n".join([count, *self._list_lines(data, lang, depth=0)])
        if isinstance(data, dict):
            lines = self._object_lines(data, lang, depth=0)
            return "\n".join([texts["intro"], *lines] if with_intro else lines)
        return self._scalar(None, data, lang)

    def _scalar(self, key: str | None, value: Any, lang: Lang) -> str:
        texts = _TEXTS[lang]
        if isinstance(value, bool):
            return texts["yes"] if value else texts["no"]
        if is_number(value):
            return format_number(value, lang)
        if value is None:
            return "—"
        text = str(value).strip()
        if is_date_text(text):
            return format_when(text, lang)
        return text

    def _object_lines(self, obj: dict[str, Any], lang: Lang, depth: int) -> list[str]:
        pad = _INDENT * depth
        lines: list[str] = []
        for key, value in obj.items():
            if is_noise(key):
                continue
            label = humanize_key(key)
            if is_multilingual(value):
                lines.append(f"{pad}{label}: {pick_language(value, lang)}")
            elif is_scalar(value):
                lines.append(f"{pad}{label}: {self._scalar(key, value, lang)}")
            elif isinstance(value, dict):
                if depth >= _MAX_DEPTH:
                    continue
                inner = self._object_lines(value, lang, depth + 1)
                if inner:
                    lines.extend([f"{pad}{label}:", *inner])
            elif isinstance(value, list):
                if not value:
                    lines.append(f"{pad}{label}: —")
                elif all(is_scalar(v) for v in value):
                    shown = ", ".join(self._scalar(None, v, lang) for v in value[: self._max_items])
                    lines.append(f"{pad}{label}: {shown}{self._more(len(value), lang, inline=True)}")
                elif depth < _MAX_DEPTH:
                    lines.extend([f"{pad}{label}:", *self._list_lines(value, lang, depth + 1)])
        return lines

    def _list_lines(self, items: list[Any], lang: Lang, depth: int) -> list[str]:
        pad = _INDENT * max(0, depth - 1) if depth else ""
        lines = [f"{pad}{_BULLET}{self._item_line(item, lang)}" for item in items[: self._max_items]]
        if len(items) > self._max_items:
            lines.append(f"{pad}{self._more(len(items), lang, inline=False)}")
        return lines

    def _more(self, total: int, lang: Lang, *, inline: bool) -> str:
        hidden = total - self._max_items
        if hidden <= 0:
            return ""
        text = _TEXTS[lang]["more"].format(n=hidden)
        return f" {text}" if inline else text

    def _item_line(self, item: Any, lang: Lang) -> str:
        if not isinstance(item, dict):
            return self._scalar(None, item, lang) if is_scalar(item) else str(item)
        parts: list[str] = []
        title = item_title(item, lang)
        if title:
            parts.append(title[1])
        span = item_span(item)
        if span:
            parts.append(format_span(span[0], span[1], lang))
        numbers = number_fields(item)
        if numbers:
            parts.append(", ".join(f"{humanize_key(k).lower()} {format_number(v, lang)}" for k, v in numbers))
        if not parts:
            shown = [(k, v) for k, v in item.items() if is_scalar(v) and not is_noise(k)][:3]
            parts.append(", ".join(f"{humanize_key(k)}: {self._scalar(k, v, lang)}" for k, v in shown))
        return " — ".join(p for p in parts if p)
