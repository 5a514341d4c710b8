"""The holiday reader skips the words other readers took (a country's name) in one pass."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loop_svc.extraction.holiday_names import HolidayNames, _outside

_WORDS = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 8)), max_size=40).map(
    lambda pairs: [(f"w{i}", s, s + n) for i, (s, n) in enumerate(sorted(pairs))]
)
_SPANS = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 30)), max_size=20).map(
    lambda pairs: [(s, s + n) for s, n in pairs]
)


@given(_WORDS, _SPANS)
def test_words_outside_spans_are_those_overlapping_none(
    words: list[tuple[str, int, int]], spans: list[tuple[int, int]]
) -> None:
    naive = [w for w in words if all(w[2] <= s or w[1] >= e for s, e in spans)]
    assert _outside(words, spans) == naive


# Church and folk names the package's tables lack, in their case forms, dated by the
# country asked about (Whit Monday is Germany's "Pentecost Monday", Estonia has Easter
# without its Monday).
ALIAS_CASES = [
    ("over whitsun", "en", "EE", ["2027-05-16"]),
    ("on whit monday", "en", "DE", ["2027-05-17"]),
    ("the easter holidays", "en", "EE", ["2027-03-26", "2027-03-28"]),
    ("lihavõtete ajal", "et", "EE", ["2027-03-26", "2027-03-28"]),
    ("lihavottepuhadel", "et", "FI", ["2027-03-26", "2027-03-29"]),
    ("nelipühal", "et", "EE", ["2027-05-16"]),
    ("на Троицу", "ru", "EE", ["2027-05-16"]),
    ("после Троицы", "ru", "LV", ["2027-05-16"]),
    ("на Духов день", "ru", "DE", ["2027-05-17"]),
    ("в Иванов день", "ru", "EE", ["2027-06-24"]),
]


@pytest.mark.parametrize(("text", "lang", "country", "span"), ALIAS_CASES)
def test_names_the_package_lacks(holiday_names: HolidayNames, text, lang, country, span) -> None:
    found = holiday_names.find(text, lang, date(2026, 12, 1), country=country, year=2027)
    assert found, text
    days = found[0].dates
    assert (days[0].isoformat(), days[-1].isoformat()) == (span[0], span[-1]), text


@pytest.mark.parametrize(
    ("text", "lang", "known", "span"),
    [
        ("and easter monday?", "en", "DE", ("2027-03-29", "2027-03-29")),
        ("ja lihavõtted?", "et", "FI", ("2027-03-26", "2027-03-29")),
        ("ja lihavõtted?", "et", "EE", ("2027-03-26", "2027-03-28")),
        ("а на Троицу?", "ru", "LV", ("2027-05-16", "2027-05-16")),
    ],
)
def test_a_holiday_in_a_follow_up_is_dated_in_the_known_country(
    holiday_names: HolidayNames, text: str, lang: str, known: str, span: tuple[str, str]
) -> None:
    from loop_svc.extraction import CountryNames, RuleExtractor
    from loop_svc.schema import ParamSpec

    params = [
        ParamSpec(name="countryIsoCode", type="string", required=True, description="ISO country code"),
        ParamSpec(name="validFrom", type="date", required=True, description="Start date (YYYY-MM-DD)"),
        ParamSpec(name="validTo", type="date", required=True, description="End date (YYYY-MM-DD)"),
    ]
    extractor = RuleExtractor(CountryNames(), today=lambda: date(2026, 12, 1), holidays=holiday_names)
    values = extractor.extract(text, params, language=lang, known={"countryIsoCode": known})  # type: ignore[arg-type]
    assert (values.get("validFrom"), values.get("validTo")) == span, text
