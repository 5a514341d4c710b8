"""Rule-based parameter extraction (no gRPC, no model): dates and ranges,
years, numbers, yes/no, enumerations, countries and languages in en/et/ru.
See loop_svc/README.md for the rules."""

from loop_svc.extraction.countries import CountryNames
from loop_svc.extraction.rules import RuleExtractor
from loop_svc.extraction.values import yes_no

__all__ = ["CountryNames", "RuleExtractor", "yes_no"]
