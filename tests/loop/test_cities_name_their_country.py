"""A city stands for its country: the European cities time zones are named after (tz's
country of each zone; the names in en from the zone, in et/ru from babel's CLDR data), as
written, without diacritics, in an Estonian case ("Riias", "Helsingist", "Berliinis") or
a Russian one (pymorphy3: "в Риге", "из Вильнюса") — generated over the whole map, not a
list of phrases. A city beside a house number is part of an address, no country."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from loop_svc.extraction import RuleExtractor
from loop_svc.extraction.countries import CountryNames, city_names
from loop_svc.extraction.text import fold
from loop_svc.schema import EndpointSpec
from services.language import russian_analyzer

CITIES = [
    (lang, name, code)
    for lang, names in city_names().items()
    for name, code in names.items()
    if " " not in name and "-" not in name
]
# The countries the demo services are asked about, whose capitals people name.
CAPITALS = {"riga": "LV", "vilnius": "LT", "helsinki": "FI", "berlin": "DE", "tallinn": "EE"}


def test_the_map_holds_the_capitals_in_three_languages() -> None:
    names = city_names()
    for english, code in CAPITALS.items():
        assert names["en"][english] == code
    assert names["et"]["riia"] == "LV" and names["et"]["helsingi"] == "FI"
    assert names["ru"]["рига"] == "LV" and names["ru"]["вильнюс"] == "LT"


@settings(max_examples=80, deadline=None)
@given(city=st.sampled_from(CITIES), folded=st.booleans())
def test_a_city_as_written_or_folded_names_its_country(
    countries: CountryNames, city: tuple[str, str, str], folded: bool
) -> None:
    lang, name, code = city
    said = fold(name) if folded and lang != "ru" else name
    text = {
        "en": "holidays in {c} next month",
        "et": "riigipühad, elame {c} lähedal",
        "ru": "праздники, живём: {c}",
    }
    assert code in [m.code for m in countries.find(text[lang].format(c=said))], said


@settings(max_examples=60, deadline=None)
@given(
    city=st.sampled_from([c for c in CITIES if c[0] == "ru"]), case=st.sampled_from(["loct", "gent", "datv"])
)
def test_a_russian_city_in_a_case_form_names_its_country(
    countries: CountryNames, city: tuple[str, str, str], case: str
) -> None:
    _, name, code = city
    places = [p for p in russian_analyzer().parse(name) if "Geox" in p.tag]
    inflected = places[0].inflect({case}) if places else None
    form = inflected.word if inflected is not None else name
    # A name pymorphy3 declines that it does not read back ("Сараево" does not decline).
    assume(any("Geox" in p.tag and p.normal_form == name for p in russian_analyzer().parse(form)))
    assert code in [m.code for m in countries.find(f"праздники, мы едем к {form} летом")], form


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("elame helsingis", "FI"),
        ("tahame helsingisse minna", "FI"),
        ("sõidame riiga? ei, riias on sugulased", "LV"),
        ("tulime berliinist", "DE"),
        ("plaanime vilniusesse minna", "LT"),
        ("my cousin is coming over from riga in november", "LV"),
        ("сестра живет в хельсинки", "FI"),
        ("едем в Ригу", "LV"),
        ("из Вильнюса", "LT"),
    ],
)
def test_capitals_in_their_case_forms(countries: CountryNames, text: str, code: str) -> None:
    assert code in [m.code for m in countries.find(text)], text


@pytest.mark.parametrize(
    "text",
    [
        "viru 4 tallinn postiindeks",
        "riia 15 tartus",
        "индекс у виру 4 в таллине",
        "kas sa oled päris inimene",  # "päris" (real) is no "Paris" written without its accent
        "näita 3 viimast hääletust",  # "viimast" shares a stem with "Viin", never compared
    ],
)
def test_no_city_country_in_addresses_or_common_words(countries: CountryNames, text: str) -> None:
    assert countries.find(text) == [], text


@pytest.mark.parametrize(
    ("message", "language", "code"),
    [
        ("going to riga in june, any holidays there i should know about?", "en", "LV"),
        ("soome koolivaheajad huvitavad, elame helsingis", "et", "FI"),
        ("сестра живет в хельсинки, какие у них праздники с сентября?", "ru", "FI"),
    ],
)
def test_the_country_value_comes_from_the_city(
    extractor: RuleExtractor, holidays: EndpointSpec, message: str, language: str, code: str
) -> None:
    values = extractor.extract(message, holidays.params, language=language)  # type: ignore[arg-type]
    assert values.get("countryIsoCode") == code


def test_a_long_message_of_city_like_words_is_read_promptly(countries: CountryNames) -> None:
    text = " ".join(["riiaaaas", "helsingisse", "в", "ригеее", "4", "tallinn"] * 3_000) + " x" * 30_000
    assert len(text) > 100_000
    found = countries.find(text)
    assert {m.code for m in found} <= {"FI", "EE", "LV"}
