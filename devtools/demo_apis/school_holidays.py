"""Estonian school holidays (vaheajad), by the pattern the ministry has used in
recent school years: autumn in ISO week 43, three weeks around Christmas,
winter in week 9, spring in week 17, summer from mid-June to the end of August."""

from __future__ import annotations

from datetime import date, timedelta

from devtools.demo_apis.calendar_rules import monday_of_iso_week, weekday_on_or_after
from devtools.demo_apis.holidays import Holiday

_NAMES: dict[str, dict[str, str]] = {
    "autumn": {"EN": "Autumn holidays", "ET": "Sügisvaheaeg", "RU": "Осенние каникулы"},
    "christmas": {"EN": "Christmas holidays", "ET": "Jõuluvaheaeg", "RU": "Рождественские каникулы"},
    "winter": {"EN": "Winter holidays", "ET": "Talvevaheaeg", "RU": "Зимние каникулы"},
    "spring": {"EN": "Spring holidays", "ET": "Kevadvaheaeg", "RU": "Весенние каникулы"},
    "summer": {"EN": "Summer holidays", "ET": "Suvevaheaeg", "RU": "Летние каникулы"},
}

SCHOOL_HOLIDAY_COUNTRIES = frozenset({"EE"})


def _school_year(first_year: int) -> list[Holiday]:
    """The five holidays of the school year that starts in September of `first_year`."""
    second_year = first_year + 1
    autumn = monday_of_iso_week(first_year, 43)
    christmas_start = weekday_on_or_after(date(first_year, 12, 17), 0)
    christmas_end = weekday_on_or_after(date(second_year, 1, 8), 6)
    winter = monday_of_iso_week(second_year, 9)
    spring = monday_of_iso_week(second_year, 17)
    summer_start = weekday_on_or_after(date(second_year, 6, 10), 0)
    spans = {
        "autumn": (autumn, autumn + timedelta(days=6)),
        "christmas": (christmas_start, christmas_end),
        "winter": (winter, winter + timedelta(days=6)),
        "spring": (spring, spring + timedelta(days=6)),
        "summer": (summer_start, date(second_year, 8, 31)),
    }
    return [
        Holiday("EE", f"{key}_{first_year}", start, end, _NAMES[key], kind="School")
        for key, (start, end) in spans.items()
    ]


def school_holidays(country: str, valid_from: date, valid_to: date) -> list[Holiday]:
    """School holidays overlapping the range (inclusive), in date order."""
    if country not in SCHOOL_HOLIDAY_COUNTRIES:
        raise KeyError(country)
    found = [
        holiday
        for first_year in range(valid_from.year - 1, valid_to.year + 1)
        for holiday in _school_year(first_year)
        if holiday.start <= valid_to and holiday.end >= valid_from
    ]
    return sorted(found, key=lambda h: h.start)
