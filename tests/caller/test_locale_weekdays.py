"""Dates with their weekday name the weekday in full, in every language (a citizen asking
"what day of the week is it" reads "Wednesday", not "Wed")."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from caller_svc.locale_format import format_day, format_day_with_weekday

FULL_NAMES = {
    "en": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "et": ["esmaspäev", "teisipäev", "kolmapäev", "neljapäev", "reede", "laupäev", "pühapäev"],
    "ru": ["понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье"],
}


@pytest.mark.parametrize("lang", sorted(FULL_NAMES))
def test_every_weekday_is_named_in_full_before_its_day(lang: str) -> None:
    monday = date(2026, 11, 30)
    for offset, name in enumerate(FULL_NAMES[lang]):
        day = monday + timedelta(days=offset)
        text = format_day_with_weekday(day, lang)  # type: ignore[arg-type]
        assert text == f"{name}, {format_day(day, lang)}", text  # type: ignore[arg-type]
