"""Reading arbitrary API JSON the way a person would: which field names an
item, which fields are dates, which numbers matter. Shared by the summary and
the formatter."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from services.language import Lang

# Fields that name an item, most telling first.
TITLE_KEYS = ("name", "title", "fullAddress", "address", "text", "label", "headline", "description")
START_KEYS = ("startDate", "start_date", "validFrom", "from", "start")
END_KEYS = ("endDate", "end_date", "validTo", "to", "end")
POINT_KEYS = ("date", "time", "datetime", "timestamp_iso", "publishedAt", "createdAt")
# Identifiers and plumbing nobody wants read out.
_NOISE = re.compile(r"^(id|uuid|success|timestamp|.*(Id|_id|Oid|Uuid))$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")


def is_noise(key: str) -> bool:
    return bool(_NOISE.match(key))


def is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_date_text(value: Any) -> bool:
    return isinstance(value, str) and bool(_DATE.match(value) or _DATETIME.match(value))


def humanize_key(key: str) -> str:
    """'fullMassKg' → 'Full mass kg', 'postal_code' → 'Postal code'."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", key).replace("_", " ")
    words = spaced.split()
    if not words:
        return key
    text = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)
    return text[0].upper() + text[1:]


def humanize_name(endpoint_name: str) -> str:
    """'get_national_holidays' → 'National holidays'."""
    words = [w for w in re.split(r"[_\s]+", endpoint_name) if w]
    if len(words) > 1 and words[0].lower() in {"get", "fetch", "list", "search", "find"}:
        words = words[1:] if words[0].lower() != "search" else words
    text = " ".join(words).lower()
    return text[:1].upper() + text[1:]


def is_multilingual(value: Any) -> bool:
    """OpenHolidays-style names: [{"language": "EN", "text": "..."}, ...]."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, dict) and "language" in v and "text" in v for v in value)
    )


def pick_language(entries: list[dict[str, Any]], lang: Lang) -> str:
    """The entry in `lang`, else English, else the first."""
    by_lang = {str(e["language"]).lower(): str(e["text"]) for e in entries}
    return by_lang.get(lang) or by_lang.get("en") or str(entries[0]["text"])


def _text_of(value: Any, lang: Lang) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if is_multilingual(value):
        return pick_language(value, lang)
    return None


def item_title(item: dict[str, Any], lang: Lang) -> tuple[str, str] | None:
    """(key, text) of the field that names the item; language-suffixed fields
    ('titleEn', 'nameEt') win for their language."""
    suffix = lang.capitalize()
    for key in TITLE_KEYS:
        for candidate in (f"{key}{suffix}", key):
            text = _text_of(item.get(candidate), lang)
            if text:
                return candidate, text
    return None


def item_span(item: dict[str, Any]) -> tuple[str, str | None] | None:
    """(start, end) for items that span dates, (point, None) for items at one time."""
    start = next((item[k] for k in START_KEYS if is_date_text(item.get(k))), None)
    if start is not None:
        end = next((item[k] for k in END_KEYS if is_date_text(item.get(k))), None)
        return start, end
    point = next((item[k] for k in POINT_KEYS if is_date_text(item.get(k))), None)
    if point is None:
        point = next((v for k, v in item.items() if is_date_text(v) and not is_noise(k)), None)
    return (point, None) if point is not None else None


def number_fields(item: dict[str, Any], limit: int = 4) -> list[tuple[str, float | int]]:
    """Numeric fields worth showing, one level of nesting included ('result.for' → 'for')."""
    found: list[tuple[str, float | int]] = []

    def walk(obj: dict[str, Any], depth: int) -> Iterator[tuple[str, float | int]]:
        for key, value in obj.items():
            if is_noise(key):
                continue
            if is_number(value):
                yield key, value
            elif isinstance(value, dict) and depth == 0:
                yield from walk(value, depth + 1)

    for pair in walk(item, 0):
        found.append(pair)
        if len(found) >= limit:
            break
    return found


def find_collections(value: Any, path: str = "", depth: int = 0) -> list[tuple[str, list[Any]]]:
    """(path, list) of every list inside a JSON object, up to three levels deep."""
    found: list[tuple[str, list[Any]]] = []
    if isinstance(value, dict) and depth < 3:
        for key, inner in value.items():
            inner_path = f"{path}.{key}" if path else key
            if isinstance(inner, list) and not is_multilingual(inner):
                found.append((inner_path, inner))
            else:
                found.extend(find_collections(inner, inner_path, depth + 1))
    return found
