"""Spoken dates in en/et/ru: the loop's rules against dateparser (the maintained
library), on phrases citizens use, with a fixed "today" (Tuesday 2026-03-10).

A phrase counts as read when the first date found equals the expected one (for a
range, its start). dateparser gets the phrase's language explicitly and the same
relative base.

    .venv/bin/python -m bench.spoken_dates

The last line is one JSON object.
"""

from __future__ import annotations

import json
import time
from datetime import date, datetime
from datetime import time as clock

from loop_svc.extraction.dates import find_dates
from services.language import Lang

TODAY = date(2026, 3, 10)
PHRASES: list[tuple[str, Lang, str]] = [
    ("today", "en", "2026-03-10"),
    ("tomorrow", "en", "2026-03-11"),
    ("the day after tomorrow", "en", "2026-03-12"),
    ("next Friday", "en", "2026-03-13"),
    ("Tuesday next week", "en", "2026-03-17"),
    ("March 14th", "en", "2026-03-14"),
    ("14th of this month", "en", "2026-03-14"),
    ("next month", "en", "2026-04-01"),
    ("in 3 days", "en", "2026-03-13"),
    ("täna", "et", "2026-03-10"),
    ("homme", "et", "2026-03-11"),
    ("ülehomme", "et", "2026-03-12"),
    ("järgmisel esmaspäeval", "et", "2026-03-16"),
    ("järgmisel reedel", "et", "2026-03-13"),
    ("24. veebruaril", "et", "2026-02-24"),
    ("1. märtsist", "et", "2026-03-01"),
    ("alates tänasest", "et", "2026-03-10"),
    ("järgmisel kuul", "et", "2026-04-01"),
    ("3 päeva pärast", "et", "2026-03-13"),
    ("сегодня", "ru", "2026-03-10"),
    ("завтра", "ru", "2026-03-11"),
    ("послезавтра", "ru", "2026-03-12"),
    ("в следующую пятницу", "ru", "2026-03-13"),
    ("в следующий понедельник", "ru", "2026-03-16"),
    ("1 марта", "ru", "2026-03-01"),
    ("с сегодняшнего дня", "ru", "2026-03-10"),
    ("в следующем месяце", "ru", "2026-04-01"),
    ("через 3 дня", "ru", "2026-03-13"),
]


def _rules(text: str, lang: Lang) -> str | None:
    found = find_dates(text, lang, TODAY)
    return found.dates[0].value.isoformat() if found.dates else None


def _dateparser(text: str, lang: Lang) -> str | None:
    import dateparser

    base = datetime.combine(TODAY, clock(12, 0))
    parsed = dateparser.parse(
        text, languages=[lang], settings={"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future"}
    )
    return parsed.date().isoformat() if parsed is not None else None


def main() -> None:
    _dateparser("today", "en")  # the first call loads its data
    result: dict[str, dict[str, object]] = {}
    for name, reader in (("rules", _rules), ("dateparser", _dateparser)):
        started = time.perf_counter()
        per_lang: dict[str, list[int]] = {}
        misses = []
        for text, lang, expected in PHRASES:
            got = reader(text, lang)
            per_lang.setdefault(lang, [0, 0])
            per_lang[lang][1] += 1
            if got == expected:
                per_lang[lang][0] += 1
            else:
                misses.append(f"{text} → {got}")
        result[name] = {
            "read": sum(v[0] for v in per_lang.values()),
            "of": len(PHRASES),
            "by_language": {lang: f"{v[0]}/{v[1]}" for lang, v in per_lang.items()},
            "ms_per_phrase": round((time.perf_counter() - started) * 1000 / len(PHRASES), 2),
            "misses": misses,
        }
        print(name, json.dumps(result[name], ensure_ascii=False))
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
