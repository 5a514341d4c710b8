"""An address named without a house number is still an address query: a street by its
name and type word in any case form ("raekoja platsi postiindeks", "ranna puiestee",
"индекс ратушной площади"), or a town alone written as a place in a question about
addresses ("what addresses do you have in parnu", "mis aadressid pärnus registris on",
"какие адреса есть в пярну") — the register lists that street's or town's addresses. A
town alone after a street was asked moves that street; words of the sentence in other
forms than the list's are never names. Generated over streets × type forms × frames,
towns × frames, in three languages."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import RuleExtractor
from loop_svc.extraction.addresses import find_street_or_town
from loop_svc.schema import EndpointSpec

# (name as typed, the register's name) × (type form as typed, the register's type) per language.
STREET_NAMES = [("raekoja", "Raekoja"), ("ranna", "Ranna"), ("suur-sepa", "Suur-Sepa"), ("Lossi", "Lossi")]
TYPE_FORMS = {
    "en": [("square", "plats"), ("street", "tn"), ("avenue", "pst")],
    "et": [
        ("platsi", "plats"),
        ("plats", "plats"),
        ("puiestee", "pst"),
        ("tänava", "tn"),
        ("maanteel", "mnt"),
    ],
    "ru": [("площади", "plats"), ("улица", "tn"), ("улице", "tn")],
}
STREET_FRAMES = {
    "en": ["{street} postal code", "what is the postcode of {street}", "{street} address info"],
    "et": ["{street} postiindeks", "mis on {street} sihtnumber", "otsi {street} aadressid"],
    "ru": ["индекс {street}", "какой индекс у {street}", "найди адреса {street}"],
}
# (typed, base) per language: Estonian in its place cases, Russian after "в".
TOWNS = {
    "en": [("parnu", "Parnu"), ("tartu", "Tartu"), ("Narva", "Narva")],
    "et": [("pärnus", "Pärnu"), ("tartus", "Tartu"), ("narvas", "Narva"), ("viljandis", "Viljandi")],
    "ru": [("пярну", "Pärnu"), ("тарту", "Tartu"), ("нарве", "Narva")],
}
TOWN_FRAMES = {
    "en": [
        "what addresses do you have in {town}",
        "which addresses are there in {town}",
        "addresses in {town}",
    ],
    "et": ["mis aadressid {town} registris on", "millised aadressid on {town}", "näita aadresse {town}"],
    "ru": ["какие адреса есть в {town}", "покажи адреса в {town}", "адреса в {town}"],
}


@st.composite
def street_question(draw: st.DrawFn) -> tuple[str, str, str]:
    lang = draw(st.sampled_from(sorted(TYPE_FORMS)))
    typed, name = draw(st.sampled_from(STREET_NAMES))
    form, kind = draw(st.sampled_from(TYPE_FORMS[lang]))
    frame = draw(st.sampled_from(STREET_FRAMES[lang]))
    return lang, frame.format(street=f"{typed} {form}"), f"{name} {kind}"


@settings(max_examples=150, deadline=None)
@given(street_question())
def test_a_street_without_a_house_number_is_its_name_and_type(case: tuple[str, str, str]) -> None:
    lang, message, expected = case
    found = find_street_or_town(message, (), lang)
    assert found is not None, message
    assert found.value == expected, message


TOWN_CASES = [
    (lang, frame.format(town=typed), base)
    for lang in TOWNS
    for (typed, base), frame in itertools.product(TOWNS[lang], TOWN_FRAMES[lang])
]


@pytest.mark.parametrize(("lang", "message", "town"), TOWN_CASES)
def test_a_town_alone_in_a_question_about_addresses(
    extractor: RuleExtractor, address_search: EndpointSpec, lang: str, message: str, town: str
) -> None:
    assert extractor.extract(message, address_search.params, language=lang) == {"address": town}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "holidays in finland"),
        ("en", "which of those have postcode 80010"),
        ("et", "kesklinnas"),
        ("et", "riigipühad soomes"),
        ("ru", "праздники в латвии"),
        ("ru", "какой налог на мою машину"),
    ],
)
def test_a_place_outside_a_question_about_addresses_is_no_address(
    extractor: RuleExtractor, address_search: EndpointSpec, lang: str, message: str
) -> None:
    assert "address" not in extractor.extract(message, address_search.params, language=lang)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("lang", "message", "town"),
    [
        ("en", "addresses in tartu", "Tartu"),
        ("et", "aadressid tartus", "Tartu"),
        ("ru", "адреса в тарту", "Tartu"),
    ],
)
def test_a_town_after_a_known_street_moves_the_street(
    extractor: RuleExtractor, address_search: EndpointSpec, lang: str, message: str, town: str
) -> None:
    found = extractor.extract(
        message, address_search.params, language=lang, known={"address": "Raekoja plats"}
    )  # type: ignore[arg-type]
    assert found == {"address": f"Raekoja plats, {town}"}


def test_a_house_number_leaves_the_address_to_the_house_reader() -> None:
    assert find_street_or_town("raekoja plats 1 postal code", (), "en") is None
