"""Public holiday rules for EE, LV, LT, FI and DE, for any year.

Each rule yields the holiday's date in a year and its names by language code
(OpenHolidays uses upper-case ISO 639-1 codes: EN, ET, RU, ...).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from devtools.demo_apis.calendar_rules import easter_sunday, weekday_on_or_after

DateRule = Callable[[int], date]
# Stable ids: the same holiday on the same day always has the same id.
_ID_NAMESPACE = uuid.UUID("6f1c2a4e-3b9d-4c57-9a61-0d2e8b7f5c10")


def fixed(month: int, day: int) -> DateRule:
    return lambda year: date(year, month, day)


def easter_offset(days: int) -> DateRule:
    return lambda year: easter_sunday(year) + timedelta(days=days)


def weekday_from(month: int, day: int, weekday: int) -> DateRule:
    """The first `weekday` (Monday=0) on or after month/day: Finnish midsummer, LT Mother's Day..."""
    return lambda year: weekday_on_or_after(date(year, month, day), weekday)


@dataclass(frozen=True)
class HolidayRule:
    key: str
    when: DateRule
    names: dict[str, str]


@dataclass(frozen=True)
class Holiday:
    country: str
    key: str
    start: date
    end: date
    names: dict[str, str]
    kind: str = "Public"

    @property
    def id(self) -> str:
        name = f"{self.country}:{self.kind}:{self.key}:{self.start.isoformat()}"
        return str(uuid.uuid5(_ID_NAMESPACE, name))


def _rule(key: str, when: DateRule, **names: str) -> HolidayRule:
    return HolidayRule(key, when, {lang.upper(): text for lang, text in names.items()})


# The twelve Estonian public holidays (Public Holidays and Days of National Importance Act, § 2).
ESTONIA = [
    _rule("new_year", fixed(1, 1), en="New Year's Day", et="uusaasta", ru="Новый год"),
    _rule(
        "independence_day",
        fixed(2, 24),
        en="Independence Day",
        et="iseseisvuspäev, Eesti Vabariigi aastapäev",
        ru="День независимости",
    ),
    _rule("good_friday", easter_offset(-2), en="Good Friday", et="suur reede", ru="Страстная пятница"),
    _rule("easter_sunday", easter_offset(0), en="Easter Sunday", et="ülestõusmispühade 1. püha", ru="Пасха"),
    _rule("spring_day", fixed(5, 1), en="Spring Day", et="kevadpüha", ru="Праздник весны"),
    _rule("pentecost", easter_offset(49), en="Pentecost", et="nelipühade 1. püha", ru="Троица"),
    _rule("victory_day", fixed(6, 23), en="Victory Day", et="võidupüha", ru="День победы"),
    _rule("midsummer_day", fixed(6, 24), en="Midsummer Day", et="jaanipäev", ru="Иванов день"),
    _rule(
        "restoration_of_independence",
        fixed(8, 20),
        en="Day of Restoration of Independence",
        et="taasiseseisvumispäev",
        ru="День восстановления независимости",
    ),
    _rule("christmas_eve", fixed(12, 24), en="Christmas Eve", et="jõululaupäev", ru="Сочельник"),
    _rule("christmas_day", fixed(12, 25), en="Christmas Day", et="esimene jõulupüha", ru="Рождество"),
    _rule("boxing_day", fixed(12, 26), en="Boxing Day", et="teine jõulupüha", ru="Второй день Рождества"),
]

LATVIA = [
    _rule("new_year", fixed(1, 1), en="New Year's Day", lv="Jaungada diena"),
    _rule("good_friday", easter_offset(-2), en="Good Friday", lv="Lielā Piektdiena"),
    _rule("easter_sunday", easter_offset(0), en="Easter Sunday", lv="Lieldienas"),
    _rule("easter_monday", easter_offset(1), en="Easter Monday", lv="Otrās Lieldienas"),
    _rule("labour_day", fixed(5, 1), en="Labour Day", lv="Darba svētki"),
    _rule(
        "restoration_of_independence",
        fixed(5, 4),
        en="Restoration of Independence Day",
        lv="Latvijas Republikas Neatkarības atjaunošanas diena",
    ),
    _rule("whit_sunday", easter_offset(49), en="Whit Sunday", lv="Vasarsvētki"),
    _rule("midsummer_eve", fixed(6, 23), en="Midsummer Eve", lv="Līgo diena"),
    _rule("midsummer_day", fixed(6, 24), en="Midsummer Day", lv="Jāņu diena"),
    _rule(
        "proclamation_day",
        fixed(11, 18),
        en="Proclamation Day of the Republic of Latvia",
        lv="Latvijas Republikas proklamēšanas diena",
    ),
    _rule("christmas_eve", fixed(12, 24), en="Christmas Eve", lv="Ziemassvētku vakars"),
    _rule("christmas_day", fixed(12, 25), en="Christmas Day", lv="Pirmie Ziemassvētki"),
    _rule("second_christmas_day", fixed(12, 26), en="Second Day of Christmas", lv="Otrie Ziemassvētki"),
    _rule("new_years_eve", fixed(12, 31), en="New Year's Eve", lv="Vecgada diena"),
]

LITHUANIA = [
    _rule("new_year", fixed(1, 1), en="New Year's Day", lt="Naujieji metai"),
    _rule(
        "restoration_of_state",
        fixed(2, 16),
        en="Day of Restoration of the State of Lithuania",
        lt="Lietuvos valstybės atkūrimo diena",
    ),
    _rule(
        "restoration_of_independence",
        fixed(3, 11),
        en="Day of Restoration of Independence of Lithuania",
        lt="Lietuvos nepriklausomybės atkūrimo diena",
    ),
    _rule("easter_sunday", easter_offset(0), en="Easter Sunday", lt="Velykos"),
    _rule("easter_monday", easter_offset(1), en="Easter Monday", lt="Antroji Velykų diena"),
    _rule("labour_day", fixed(5, 1), en="International Workers' Day", lt="Tarptautinė darbo diena"),
    _rule("mothers_day", weekday_from(5, 1, 6), en="Mother's Day", lt="Motinos diena"),
    _rule("fathers_day", weekday_from(6, 1, 6), en="Father's Day", lt="Tėvo diena"),
    _rule("st_johns_day", fixed(6, 24), en="St. John's Day", lt="Rasos ir Joninių diena"),
    _rule("statehood_day", fixed(7, 6), en="Statehood Day", lt="Valstybės diena"),
    _rule("assumption_day", fixed(8, 15), en="Assumption Day", lt="Žolinė"),
    _rule("all_saints_day", fixed(11, 1), en="All Saints' Day", lt="Visų šventųjų diena"),
    _rule("all_souls_day", fixed(11, 2), en="All Souls' Day", lt="Mirusiųjų atminimo diena"),
    _rule("christmas_eve", fixed(12, 24), en="Christmas Eve", lt="Kūčios"),
    _rule("christmas_day", fixed(12, 25), en="Christmas Day", lt="Kalėdos"),
    _rule("second_christmas_day", fixed(12, 26), en="Second Day of Christmas", lt="Antroji Kalėdų diena"),
]

FINLAND = [
    _rule("new_year", fixed(1, 1), en="New Year's Day", fi="Uudenvuodenpäivä"),
    _rule("epiphany", fixed(1, 6), en="Epiphany", fi="Loppiainen"),
    _rule("good_friday", easter_offset(-2), en="Good Friday", fi="Pitkäperjantai"),
    _rule("easter_sunday", easter_offset(0), en="Easter Sunday", fi="Pääsiäispäivä"),
    _rule("easter_monday", easter_offset(1), en="Easter Monday", fi="2. pääsiäispäivä"),
    _rule("may_day", fixed(5, 1), en="May Day", fi="Vappu"),
    _rule("ascension_day", easter_offset(39), en="Ascension Day", fi="Helatorstai"),
    _rule("whit_sunday", easter_offset(49), en="Whit Sunday", fi="Helluntaipäivä"),
    _rule("midsummer_eve", weekday_from(6, 19, 4), en="Midsummer Eve", fi="Juhannusaatto"),
    _rule("midsummer_day", weekday_from(6, 20, 5), en="Midsummer Day", fi="Juhannuspäivä"),
    _rule("all_saints_day", weekday_from(10, 31, 5), en="All Saints' Day", fi="Pyhäinpäivä"),
    _rule("independence_day", fixed(12, 6), en="Independence Day", fi="Itsenäisyyspäivä"),
    _rule("christmas_eve", fixed(12, 24), en="Christmas Eve", fi="Jouluaatto"),
    _rule("christmas_day", fixed(12, 25), en="Christmas Day", fi="Joulupäivä"),
    _rule("st_stephens_day", fixed(12, 26), en="St. Stephen's Day", fi="Tapaninpäivä"),
]

# Nationwide German holidays only (the Länder add their own).
GERMANY = [
    _rule("new_year", fixed(1, 1), en="New Year's Day", de="Neujahr"),
    _rule("good_friday", easter_offset(-2), en="Good Friday", de="Karfreitag"),
    _rule("easter_monday", easter_offset(1), en="Easter Monday", de="Ostermontag"),
    _rule("labour_day", fixed(5, 1), en="Labour Day", de="Tag der Arbeit"),
    _rule("ascension_day", easter_offset(39), en="Ascension Day", de="Christi Himmelfahrt"),
    _rule("whit_monday", easter_offset(50), en="Whit Monday", de="Pfingstmontag"),
    _rule("german_unity_day", fixed(10, 3), en="German Unity Day", de="Tag der Deutschen Einheit"),
    _rule("christmas_day", fixed(12, 25), en="Christmas Day", de="1. Weihnachtstag"),
    _rule("second_christmas_day", fixed(12, 26), en="Second Day of Christmas", de="2. Weihnachtstag"),
]

PUBLIC_HOLIDAY_RULES: dict[str, list[HolidayRule]] = {
    "EE": ESTONIA,
    "LV": LATVIA,
    "LT": LITHUANIA,
    "FI": FINLAND,
    "DE": GERMANY,
}


def public_holidays(country: str, valid_from: date, valid_to: date) -> list[Holiday]:
    """Public holidays of `country` between the two dates (inclusive), in date order."""
    rules = PUBLIC_HOLIDAY_RULES[country]
    found: list[Holiday] = []
    for year in range(valid_from.year, valid_to.year + 1):
        for rule in rules:
            day = rule.when(year)
            if valid_from <= day <= valid_to:
                found.append(Holiday(country, rule.key, day, day, rule.names))
    return sorted(found, key=lambda h: (h.start, h.key))
