"""Dates, times, numbers and country names the way a reader of en/et/ru expects them."""

from __future__ import annotations

import functools
import gettext
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pycountry

from services.language import Lang

_MONTHS: dict[Lang, list[str]] = {
    "en": ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
    "et": ["jaanuar", "veebruar", "märts", "aprill", "mai", "juuni", "juuli", "august", "september",
           "oktoober", "november", "detsember"],
    "ru": ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября",
           "ноября", "декабря"],
}  # fmt: skip


def format_day(day: date, lang: Lang) -> str:
    month = _MONTHS[lang][day.month - 1]
    if lang == "et":
        return f"{day.day}. {month} {day.year}"
    return f"{day.day} {month} {day.year}"


def parse_when(text: str) -> date | datetime | None:
    try:
        if len(text) == 10:
            return date.fromisoformat(text)
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def format_when(text: str, lang: Lang, zone: ZoneInfo | None = None) -> str:
    """'2026-01-01' → '1 Jan 2026'; an instant → its day and time in `zone` (UTC
    when none is given and the text carries an offset)."""
    moment = parse_when(text)
    if moment is None:
        return text
    if not isinstance(moment, datetime):
        return format_day(moment, lang)
    suffix = ""
    if moment.tzinfo is not None:
        if zone is not None:
            moment = moment.astimezone(zone)
        else:
            moment, suffix = moment.astimezone(UTC), " UTC"
    return f"{format_day(moment.date(), lang)}, {moment:%H:%M}{suffix}"


def format_span(start: str, end: str | None, lang: Lang, zone: ZoneInfo | None = None) -> str:
    if not end or end == start:
        return format_when(start, lang, zone)
    first, last = parse_when(start), parse_when(end)
    if (
        isinstance(first, date)
        and not isinstance(first, datetime)
        and isinstance(last, date)
        and not isinstance(last, datetime)
        and first.year == last.year
    ):
        # "1 Jan – 31 Mar 2026": the year once.
        head = format_day(first, lang).rsplit(" ", 1)[0]
        return f"{head} – {format_day(last, lang)}"
    return f"{format_when(start, lang, zone)} – {format_when(end, lang, zone)}"


def format_number(value: float | int, lang: Lang) -> str:
    """Thousands grouped from 10 000 (years and four-digit amounts stay whole); two
    decimals for money-sized floats, four for small rates."""
    group = "," if abs(value) >= 10_000 else ""
    if isinstance(value, float):
        decimals = 2 if abs(value) >= 100 else 4
        text = f"{value:{group}.{decimals}f}".rstrip("0").rstrip(".")
    else:
        text = f"{value:{group}}"
    if lang == "en":
        return text
    # et/ru: non-breaking space between thousands, comma before decimals.
    return text.replace(",", "\u00a0").replace(".", ",")


@functools.cache
def _country_names(lang: Lang) -> dict[str, str]:
    translate = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang], fallback=True)
    return {country.alpha_2: translate.gettext(country.name) for country in pycountry.countries}


def country_name(code: str, lang: Lang) -> str | None:
    """'LV' → 'Latvia' / 'Läti' / 'Латвия'; None for anything that is not a country code."""
    name = _country_names(lang).get(code.strip().upper())
    return name[:1].upper() + name[1:] if name else None
