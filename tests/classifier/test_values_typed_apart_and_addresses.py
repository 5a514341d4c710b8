"""Values the identifier layer reads beyond one token: digits and letters typed as two words
("555 klm", "888 EVA", "n 0099887") when together they have exactly the shape of a
parameter's example, and an address (street name, street type, house number) for the
parameter whose example is one. An identifier in the message is a lookup whatever topic
a word around it resembles."""

from __future__ import annotations

import string
import time
from dataclasses import replace

import pycountry
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier_svc.layer_choice import (
    example_is_address,
    has_address,
    spaced_shapes,
    spaced_values,
)
from services.language import LanguageDetector
from tests.classifier.test_layer_choice import build, cand, with_params

PLATE = "The vehicle registration plate number (e.g., 123ABC)"
APPLICATION = "The application number (e.g. A1234567)"
ADDRESS = "The address to look up, street and house number with town (e.g., Viru tn 4, Tallinn)"
# Currency codes typed after a number are an amount (the amount test below).
CURRENCIES = frozenset(c.alpha_3.lower() for c in pycountry.currencies)
LETTERS = st.text("abcdefghjklmnprstvxyz", min_size=3, max_size=3).filter(lambda s: s not in CURRENCIES)


@settings(max_examples=60, deadline=None)
@given(
    digits=st.text(string.digits, min_size=3, max_size=3),
    letters=LETTERS,
    upper=st.booleans(),
    frame=st.sampled_from(
        ["{} soidukimaks 2025", "nalog na mashinu {} za 2026 god", "car tax for {} pls", "{}"]
    ),
)
def test_digits_and_letters_typed_apart_have_the_plates_exact_shape(
    digits: str, letters: str, upper: bool, frame: str
) -> None:
    typed = f"{digits} {letters.upper() if upper else letters}"
    assert f"{digits}{letters.upper()}" in spaced_values(frame.format(typed))
    assert "999AAA" in spaced_shapes(frame.format(typed))


@pytest.mark.parametrize("amount", ["500 eur", "300 kwh", "100 CHF", "200 km"])
def test_an_amount_is_no_value_typed_apart(amount: str) -> None:
    assert "999AAA" not in spaced_shapes(f"the fee: {amount} a year")


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("linnu tee 1 viljandi – mis maakond?", True),
        ("Akadeemia tee 3 — это Мустамяэ?", True),
        ("Ranna pst 1 к какому самоуправлению относится?", True),
        ("what is on Baker street 221b", True),
        ("ул. Виру 4 индекс", True),
        ("mis on riigipühad 2026", False),
        ("tee 3 kohvi", False),
        ("the last 5 votes", False),
    ],
)
def test_an_address_is_a_street_its_type_and_a_house_number(message: str, expected: bool) -> None:
    assert has_address(message) is expected


def test_only_an_address_example_takes_an_address() -> None:
    assert example_is_address([ADDRESS])
    assert not example_is_address([PLATE]) and not example_is_address([APPLICATION])


def test_the_scans_are_linear_on_a_long_message() -> None:
    text = "555 klm tee 1 " * 8_000  # ≈ 110k characters
    started = time.perf_counter()
    spaced_values(text)
    has_address(text)
    assert time.perf_counter() - started < 5


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def _router(detector: LanguageDetector):  # type: ignore[no-untyped-def]
    status = with_params("document_status", 0.80, APPLICATION)
    tax = with_params("vehicle_tax", 0.80, PLATE)
    address = with_params("search_address", 0.81, ADDRESS)
    return build(detector, {"": [address, tax]}, services={"": [status]})


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("555 klm soidukimaks 2025", "vehicle_tax"),
        ("nalog na mashinu 888 EVA za 2026 god", "vehicle_tax"),
        ("car tax 345 jkl this year", "vehicle_tax"),
        ("n 0099887 kas on valmis", "document_status"),
        ("linnu tee 1 viljandi – mis maakond?", "search_address"),
        ("Ranna pst 1 к какому самоуправлению относится?", "search_address"),
        ("Akadeemia tee 3 — is it in Mustamäe?", "search_address"),
    ],
)
async def test_values_typed_apart_and_addresses_route_to_their_owner(
    detector: LanguageDetector, message: str, expected: str
) -> None:
    decision = await _router(detector).decide("c1", message, None)
    assert [c.name for c in decision.endpoints] == [expected]
    assert decision.reasoning.startswith("identifier shaped like")


@pytest.mark.parametrize(
    "message",
    [
        "116MRK mis auto see on ja miks maks nii naljakalt väike on?",
        "123ABC why is the tax such a joke",
        "налог 555KLM какой-то анекдот",
    ],
)
async def test_an_identifier_is_a_lookup_whatever_topic_a_word_resembles(
    detector: LanguageDetector, message: str
) -> None:
    decision = await _router(detector).decide("c1", message, None)
    assert [c.name for c in decision.endpoints] == ["vehicle_tax"]


@pytest.mark.parametrize(
    "message",
    [
        "901EVE mis mark ja mudel see on",
        "Hi! I'm new in Estonia and I bought a car, plate 246HJK. Do I have to pay the tax in 2027?",
        "тут такое дело и 555KLM сколько налог",
    ],
)
async def test_a_clause_that_asks_nothing_is_no_second_request(
    detector: LanguageDetector, message: str
) -> None:
    # The address endpoint is closer to any part and accepts it by one word that the
    # other endpoint's texts hold as well ("Estonia"); a clause with no question word,
    # request verb or number of its own asks nothing.
    tax = replace(with_params("vehicle_tax", 0.80, PLATE), matched_terms=1, query_terms=3)
    address = with_params("search_address", 0.86, ADDRESS)
    address = replace(address, matched_terms=1, query_terms=3)
    router = build(detector, {"": [address, tax]})
    decision = await router.decide("c1", message, None)
    assert [c.name for c in decision.endpoints] == ["vehicle_tax"], decision.reasoning


@pytest.mark.parametrize(
    "message",
    [
        "estonia pst 4 postiindeks ja leedu pühad mais",
        "postal code of viru tn 4 tallinn and latvian holidays in may",
        "индекс viru tn 4 tallinn и праздники литвы в мае",
    ],
)
async def test_a_topic_only_one_endpoint_holds_is_a_second_request(
    detector: LanguageDetector, message: str
) -> None:
    # Beside an address, a clause that asks nothing in form ("leedu pühad mais") is still a
    # request of its own when its word is one endpoint's alone: the holidays hold "pühad",
    # the address search does not.
    address = replace(with_params("search_address", 0.80, ADDRESS), matched_terms=0, query_terms=3)
    holidays = replace(cand("get_national_holidays", 0.86, matched=1, of=3))
    router = build(detector, {"": [holidays, address]})
    decision = await router.decide("c1", message, None)
    assert not decision.reasoning.startswith("identifier shaped like"), decision.reasoning
