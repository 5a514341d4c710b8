"""Dates, times, numbers and country names the way a reader of en/et/ru expects them."""

from __future__ import annotations

import functools
import gettext
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pycountry
from babel.dates import format_date

from services.language import Lang

# CLDR (babel) month and weekday names; the patterns are the reader's usual ones.
_DAY_PATTERNS: dict[Lang, str] = {"en": "d MMM y", "et": "d. MMMM y", "ru": "d MMMM y"}
_SHORT_DAY_PATTERNS: dict[Lang, str] = {"en": "d MMM", "et": "d. MMMM", "ru": "d MMMM"}


def format_day(day: date, lang: Lang, *, year: bool = True) -> str:
    """'2 Dec 2026', '2. detsember 2026', '2 декабря 2026'."""
    return format_date(day, (_DAY_PATTERNS if year else _SHORT_DAY_PATTERNS)[lang], locale=lang)


def weekday_name(day: date, lang: Lang) -> str:
    """'Wednesday', 'kolmapäev', 'среда'."""
    return format_date(day, "EEEE", locale=lang)


def format_day_with_weekday(day: date, lang: Lang, *, year: bool = True) -> str:
    """'Wednesday, 2 Dec 2026', 'kolmapäev, 2. detsember 2026', 'среда, 2 декабря 2026':
    the weekday in full in every language (it is what a citizen plans by, and what a
    question about the day of the week asks)."""
    return f"{weekday_name(day, lang)}, {format_day(day, lang, year=year)}"


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
    ):
        return format_days(first, last, lang)
    if isinstance(first, datetime) and isinstance(last, datetime) and zone is not None:
        local_first, local_last = _local(first, zone), _local(last, zone)
        if local_first.hour == 0 and local_first.minute == 0 and local_last.hour == 23:
            # A window of whole local days ("tomorrow") reads as its days.
            if local_first.date() == local_last.date():
                return format_day(local_first.date(), lang)
            return format_span(local_first.date().isoformat(), local_last.date().isoformat(), lang, zone)
        if local_first.date() == local_last.date():
            return f"{format_day(local_first.date(), lang)}, {local_first:%H:%M}–{local_last:%H:%M}"
    return f"{format_when(start, lang, zone)} – {format_when(end, lang, zone)}"


def format_days(first: date, last: date, lang: Lang) -> str:
    """A span of days as a reader says it: '2027' for a whole year, 'December 2026'
    for a whole month, else both days with their years ('1 Dec 2026 – 10 Jan 2027')."""
    if (
        first.month == 1
        and first.day == 1
        and last.month == 12
        and last.day == 31
        and first.year == last.year
    ):
        return str(first.year)
    whole_month = first.day == 1 and (last + timedelta(days=1)).day == 1
    if whole_month and (first.year, first.month) == (last.year, last.month):
        return format_date(first, "LLLL y", locale=lang)
    if first == last:
        return format_day(first, lang)
    return f"{format_day(first, lang)} – {format_day(last, lang)}"


def _local(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone) if moment.tzinfo is not None else moment


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
