"""A refused value explained from the API's own error, in the reader's language; and
names the API gives in other languages (holiday names) in the reader's language where
a maintained source has them, else the country's own — never English in et/ru."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caller_svc.endpoint import ParamSpec
from caller_svc.names import HolidayNames, NoTranslations, pick_name
from caller_svc.refusals import explain, refusals

PLATE = ParamSpec("regNr", description="The vehicle registration plate number (e.g., 123ABC)")
YEAR = ParamSpec("calculationYear", "integer")


def problem(field: str, message: str) -> dict[str, Any]:
    return {"title": "One or more validation errors occurred.", "status": 400, "errors": {field: [message]}}


CASES = [
    (problem("end", "The period must not exceed 7 days."), {}, [ParamSpec("end", "datetime")],
     {"en": "at most 7 days", "et": "kuni 7 päeva", "ru": "не больше 7 дней"}),
    (problem("calculationYear", "The motor vehicle tax applies from 2025."), {"calculationYear": "2020"},
     [YEAR], {"en": "from 2025", "et": "alates 2025", "ru": "с 2025"}),
    (problem("limit", "limit must be between 1 and 100."), {"limit": "500"}, [ParamSpec("limit", "integer")],
     {"en": "from 1 to 100", "et": "1 kuni 100", "ru": "от 1 до 100"}),
    (problem("countryIsoCode", "The country 'SE' is not supported."), {"countryIsoCode": "SE"},
     [ParamSpec("countryIsoCode")], {"en": "Sweden", "et": "Rootsi", "ru": "Швеция"}),
    ({"title": "Vehicle not found", "status": 404,
      "detail": "No vehicle is registered with the number '12AB'."},
     {"regNr": "12AB"}, [PLATE], {"en": "123ABC", "et": "123ABC", "ru": "123ABC"}),
    (problem("input", "'AB12' is not an application number (up to 3 letters and 5–10 digits, e.g. A1234567)"),
     {"applicationNumber": "AB12"}, [ParamSpec("applicationNumber")],
     {"en": "5–10 digits", "et": "5–10 numbrit", "ru": "5–10 цифр"}),
    ({"detail": [{"loc": ["query", "limit"], "msg": "ensure this value is less than or equal to 100"}]},
     {"limit": "500"}, [ParamSpec("limit", "integer")], {"en": "'500'", "et": "„500“", "ru": "«500»"}),
]  # fmt: skip


@pytest.mark.parametrize(("body", "params", "specs", "said"), CASES)
@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_each_kind_of_refusal_in_each_language(body, params, specs, said, lang) -> None:
    text = explain(body, params, specs, lang)
    assert text is not None and said[lang] in text, text
    if lang != "en":
        for english in ("must", "exceed", "supported", "registered", "between", "valid"):
            assert english not in text.lower()


def test_bodies_without_a_message_are_not_explained() -> None:
    assert explain({}, {}, [], "et") is None
    assert explain([], {}, [], "ru") is None
    assert refusals({"errors": {"a": ["x"], "b": "y"}})[1].field == "b"


error_bodies = st.recursive(
    st.one_of(st.text(max_size=80), st.integers(), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["errors", "detail", "message", "title", "msg", "loc", "x"]), inner, max_size=4
        ),
    ),
    max_leaves=12,
)


@given(body=error_bodies, lang=st.sampled_from(["et", "ru"]))
@settings(deadline=None, max_examples=300)
def test_no_api_text_is_repeated_to_an_estonian_or_russian_reader(body: Any, lang: str) -> None:
    text = explain(body, {"x": "v"}, [ParamSpec("x")], lang)  # type: ignore[arg-type]
    if text is None:
        return
    for refusal in refusals(body):
        words = [w for w in refusal.message.split() if len(w) > 6 and w.isalpha() and w.isascii()]
        assert not any(w in text for w in words), (refusal.message, text)


LATVIA = [{"language": "EN", "text": "Christmas Day"}, {"language": "LV", "text": "Pirmie Ziemassvētki"}]
ESTONIA = [{"language": "EN", "text": "Christmas Eve"}, {"language": "ET", "text": "jõululaupäev"}]


def test_holiday_names_in_the_readers_language_where_a_source_has_them() -> None:
    names = HolidayNames()
    christmas = date(2026, 12, 25)
    # The holidays package has Latvian holidays in Russian: the reader gets them.
    assert pick_name(LATVIA, "ru", names, country="LV", day=christmas) == "Рождество Христово"
    # It has them in no Estonian: the country's own name, not the English one.
    assert pick_name(LATVIA, "et", names, country="LV", day=christmas) == "Pirmie Ziemassvētki"
    assert pick_name(LATVIA, "en", names, country="LV", day=christmas) == "Christmas Day"
    # An Estonian holiday for a Russian reader: no Russian source, the Estonian name.
    assert pick_name(ESTONIA, "ru", names, country="EE", day=date(2026, 12, 24)) == "jõululaupäev"
    # A name the package does not give for that day is never replaced.
    other = [{"language": "EN", "text": "Company Day"}, {"language": "LV", "text": "Uzņēmuma diena"}]
    assert pick_name(other, "ru", names, country="LV", day=christmas) == "Uzņēmuma diena"
    assert pick_name(LATVIA, "ru", NoTranslations(), country="LV", day=christmas) == "Pirmie Ziemassvētki"


@pytest.mark.parametrize(
    ("listed", "names"),
    [
        ("Supported countries: DE, EE, FI, LT, LV.",
         {"en": ["Germany", "Latvia"], "et": ["Saksamaa", "Läti"], "ru": ["Германия", "Латвия"]}),
        ("Supported countries: EE.", {"en": ["Estonia"], "et": ["Eesti"], "ru": ["Эстония"]}),
        ("Allowed values are: EE or LV", {"en": ["Estonia", "Latvia"], "et": ["Läti"], "ru": ["Латвия"]}),
    ],
)  # fmt: skip
@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_an_unsupported_value_is_explained_with_what_the_service_takes(listed, names, lang) -> None:
    """The API's own list of what it takes (not a list kept here) is said with the refusal,
    each country by its name in the reader's language."""
    body = problem("countryIsoCode", f"The country 'NO' is not supported. {listed}")
    text = explain(body, {"countryIsoCode": "NO"}, [ParamSpec("countryIsoCode")], lang)
    assert text is not None
    assert {"en": "Norway", "et": "Norra", "ru": "Норвегия"}[lang] in text
    for name in names[lang]:
        assert name in text, text
    if lang != "en":
        assert "supported" not in text.lower() and "allowed" not in text.lower()
