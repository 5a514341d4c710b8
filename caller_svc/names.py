"""Names an API gives in other languages, in the reader's language where a maintained
source has them. A multilingual name ([{"language": "EN", "text": …}, …]) is shown in
the reader's language when the API has it; otherwise a translation is looked up; and
otherwise the name in the country's own language is shown, never English in an
et/ru answer (English only when nothing else exists).

The one source so far is the `holidays` package (names per language for EE, LV, LT,
FI, DE, …): a row dated on a day the package knows as a holiday of the call's country,
whose name the API gives in English or the country's language as the package does,
takes the package's name in the reader's language.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Protocol

from services.field_terms import fold
from services.language import Lang

log = logging.getLogger(__name__)

_LOCALES: dict[Lang, tuple[str, ...]] = {"en": ("en_US", "en_GB", "en"), "et": ("et",), "ru": ("ru",)}


class NameTranslator(Protocol):
    def translate(
        self, names: Mapping[str, str], lang: Lang, *, country: str | None, day: date | None
    ) -> str | None:
        """`names` by upper-case language code as the API gave them; None when unknown."""
        ...


class NoTranslations:
    def translate(
        self, names: Mapping[str, str], lang: Lang, *, country: str | None, day: date | None
    ) -> str | None:
        return None


def _same(a: str, b: str) -> bool:
    x, y = fold(a).strip(" .'’"), fold(b).strip(" .'’")
    return bool(x) and (x == y or x in y or y in x)


class HolidayNames:
    """Holiday names from the `holidays` package, checked against the API's own name."""

    def translate(
        self, names: Mapping[str, str], lang: Lang, *, country: str | None, day: date | None
    ) -> str | None:
        if not country or day is None or not names:
            return None
        wanted = self._locale(country, lang)
        if wanted is None:
            return None
        known = self._names(country, day.year)
        by_locale = known.get(day)
        if not by_locale:
            return None
        # The API's name must be the package's name for that day in some language.
        if not any(_same(given, theirs) for given in names.values() for theirs in by_locale.values()):
            return None
        return by_locale.get(wanted)

    @functools.cache  # noqa: B019 - the instance lives as long as the process
    def _locale(self, country: str, lang: Lang) -> str | None:
        import holidays

        try:
            supported = holidays.country_holidays(country.upper()).supported_languages
        except (NotImplementedError, KeyError, AttributeError):
            return None
        return next((loc for loc in _LOCALES[lang] if loc in supported), None)

    @functools.cache  # noqa: B019
    def _names(self, country: str, year: int) -> dict[date, dict[str, str]]:
        import holidays

        try:
            cls = holidays.country_holidays(country.upper())
        except (NotImplementedError, KeyError):
            return {}
        out: dict[date, dict[str, str]] = {}
        for locale in cls.supported_languages:
            try:
                found = holidays.country_holidays(country.upper(), years=year, language=locale)
            except Exception:  # a locale the package lists but cannot load
                log.debug("holidays: %s %s not loadable", country, locale)
                continue
            for day, name in found.items():
                out.setdefault(day, {})[locale] = name
        return out


def pick_name(
    entries: Sequence[Mapping[str, Any]],
    lang: Lang,
    translator: NameTranslator,
    *,
    country: str | None = None,
    day: date | None = None,
) -> str:
    """The text of a multilingual name for a reader of `lang` (see the module doc)."""
    names = {str(e.get("language", "")).upper(): str(e.get("text", "")) for e in entries if e.get("text")}
    if not names:
        return ""
    own = names.get(lang.upper())
    if own:
        return own
    translated = translator.translate(names, lang, country=country, day=day)
    if translated:
        return translated
    if lang == "en":
        return names.get("EN") or next(iter(names.values()))
    local = [text for code, text in names.items() if code != "EN"]
    if country and names.get(country.upper()):
        return names[country.upper()]
    return local[0] if local else names.get("EN", "")
