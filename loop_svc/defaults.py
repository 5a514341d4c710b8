"""Values a citizen expects without saying them, derived from a parameter's description
and type (never from endpoint names):

- a required country whose description's examples name the citizen's own country
  ("e.g., EE for Estonia") → that country (the home country, EE by default);
- a required year to calculate something for (a tax year, a calculation year) → this year;
- a required start/end date pair of a calendar-like search (holidays, breaks, events)
  with no period said → from today for a year; for a question about the past ("when
  was the last holiday", "millal eelmine sügisvaheaeg oli") the year up to today;
  with only its start said ("after this year's midsummer", "from 1 September on") →
  for a year from that day.

An optional parameter is never filled: the API's own default applies.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date, timedelta

import pycountry

from loop_svc.schema import Concept, ParamSpec, date_pairs

_CALCULATION = re.compile(r"\b(?:calculat\w*|tax\w*|fiscal|billing|assessment|budget\w*)\b", re.I)
_CALENDAR = re.compile(r"\b(?:holidays?|vacations?|breaks?|calendar|events?|schedule)\b", re.I)


class Defaults:
    def __init__(self, today: Callable[[], date], home_country: str = "EE") -> None:
        self._today = today
        self._home = home_country.upper()
        country = pycountry.countries.get(alpha_2=self._home)
        names = {self._home}
        if country is not None:
            names |= {
                getattr(country, a) for a in ("name", "common_name", "official_name") if hasattr(country, a)
            }
        self._home_pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")\b")

    def fill(
        self, params: Sequence[ParamSpec], known: Mapping[str, str], *, past: bool = False
    ) -> dict[str, str]:
        """Defaults for the required parameters still missing; `past`: the question is
        about the past (the year before today is searched, not the year after it)."""
        values: dict[str, str] = {}
        missing = [p for p in params if p.required and p.name not in known]
        for param in missing:
            if param.concept is Concept.COUNTRY and self._home_pattern.search(param.description):
                values[param.name] = self._home
            elif param.concept is Concept.YEAR and _CALCULATION.search(f"{param.name} {param.description}"):
                values[param.name] = str(self._today().year)
        for start, end in date_pairs(missing):
            if start.concept is Concept.DATE and _CALENDAR.search(f"{start.description} {end.description}"):
                today = self._today()
                step = -1 if past else 1
                try:
                    other = today.replace(year=today.year + step)
                except ValueError:  # 29 February
                    other = today + timedelta(days=365 * step)
                first, last = (other, today) if past else (today, other)
                values[start.name] = first.isoformat()
                values[end.name] = last.isoformat()
        for param in missing:
            start_of = next((s for s, e in date_pairs(params) if e is param and s.name in known), None)
            if start_of is None or start_of.concept is not Concept.DATE:
                continue
            if not _CALENDAR.search(f"{start_of.description} {param.description}"):
                continue
            try:
                opens = date.fromisoformat(known[start_of.name])
            except ValueError:
                continue
            values[param.name] = _a_year_after(opens).isoformat()
        return values


def _a_year_after(day: date) -> date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day + timedelta(days=365)
