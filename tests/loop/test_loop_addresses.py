"""Addresses anywhere in a sentence, typed the way people type them (lower case, without
diacritics, the town in a case form, in Cyrillic), read as the register writes them: the
street, its type abbreviated, the house number, the town in its base form."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.addresses import (
    MAX_BROADER,
    PERSONAL_PRONOUNS,
    broader_addresses,
    corrected_town,
    estonian_latin,
    find_address,
)
from loop_svc.schema import ParamSpec
from services.text import STOPWORDS

STREETS = ["Pikk", "Lai", "Kalda", "Ülikooli", "Vana-Posti", "Rüütli", "Tähe", "Jõe", "Mere", "Kesk"]
TYPES = {
    "tn": ["tn", "tänav", "tanav", "street"],
    "mnt": ["mnt", "maantee"],
    "pst": ["pst", "puiestee"],
    "tee": ["tee"],
    "": [""],
}
# (base, Estonian inessive, Russian prepositional in Cyrillic)
TOWNS = [
    ("Tartu", "Tartus", "в Тарту"),
    ("Tallinn", "Tallinnas", "в Таллинне"),
    ("Narva", "Narvas", "в Нарве"),
    ("Viljandi", "Viljandis", "в Вильянди"),
    ("Rakvere", "Rakveres", "в Раквере"),
]
FRAMES = {
    "en": [
        "{a}",
        "postal code of {a}",
        "what county is {a} in?",
        "find the address {a} please",
        "coordinates for {a}?",
    ],
    "et": ["{a}", "mis on {a} postiindeks", "otsi aadress {a}", "kus asub {a}?", "mis maakonnas on {a}"],
    "ru": ["{a}", "какой индекс у {a}?", "найди адрес {a}", "где находится {a}?"],
}


def fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


@settings(max_examples=200, deadline=None)
@given(
    street=st.sampled_from(STREETS),
    kind=st.sampled_from(sorted(TYPES)),
    spelling=st.integers(0, 3),
    number=st.integers(1, 250),
    letter=st.sampled_from(["", "a", "b"]),
    town=st.sampled_from(TOWNS),
    town_form=st.sampled_from(["none", "base", "comma", "in", "case"]),
    lang=st.sampled_from(["en", "et", "ru"]),
    frame=st.integers(0, 4),
    lower=st.booleans(),
    diacritics=st.booleans(),
)
def test_an_address_in_any_sentence_is_read_in_the_registers_form(
    street: str,
    kind: str,
    spelling: int,
    number: int,
    letter: str,
    town: tuple[str, str, str],
    town_form: str,
    lang: str,
    frame: int,
    lower: bool,
    diacritics: bool,
) -> None:
    typed_type = TYPES[kind][spelling % len(TYPES[kind])]
    house = f"{number}{letter}"
    base, inessive, _ = town
    written_town = {
        "none": "",
        "base": f" {base}",
        "comma": f", {base}",
        "in": f" {'in' if lang == 'en' else 'в' if lang == 'ru' else ''} {base}".replace("  ", " "),
        "case": f" {inessive}" if lang == "et" else f" {base}",
    }[town_form]
    address = f"{street} {typed_type} {house}".replace("  ", " ") + written_town
    if lang == "ru" and town_form == "in":
        address = f"{street} {typed_type} {house}".replace("  ", " ") + f" в {base}"
    if lower:
        address = address.lower()
    if not diacritics:
        address = fold(address)
    frames = FRAMES[lang]
    text = frames[frame % len(frames)].format(a=address)

    found = find_address(text, (), lang)
    assert found is not None, text
    value = fold(found.value)
    assert fold(street) in value, (text, found.value)
    assert house in value
    if kind:
        assert f" {kind} " in f" {value} ", (text, found.value)
    if town_form != "none":
        assert value.endswith(f", {fold(base)}"), (text, found.value)
    assert not any(
        word in value.split() for word in ("postal", "code", "postiindeks", "индекс", "otsi", "mis")
    )


@pytest.mark.parametrize(
    ("cyrillic", "estonian"),
    [
        ("Пярну", "Pärnu"),
        ("Юликооли", "Ülikooli"),
        ("Рюйтли", "Rüütli"),
        ("Вильянди", "Viljandi"),
        ("Мустамяэ", "Mustamäe"),
        ("Сыпрузе", "Sõpruse"),
        ("Рявала", "Rävala"),
        ("Пеэтри", "Peetri"),
        ("Таллинн", "Tallinn"),
        ("Кохтла", "Kohtla"),
    ],
)
def test_cyrillic_estonian_names_in_estonian_letters(cyrillic: str, estonian: str) -> None:
    assert estonian_latin(cyrillic) == estonian


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Нарвское шоссе 7 это какой район Таллина?", "Narva mnt 7"),
        ("Пярнуское шоссе 10, Таллинн", "Pärnu mnt 10, Tallinn"),
        ("какой индекс у виру 4 в таллине", "Viru 4, Tallin"),
        ("тарту юликооли 18 индекс", "Tartu Ülikooli 18"),
        ("индекс по адресу Рюйтли 1, Пярну", "Rüütli 1, Pärnu"),
        ("улица Ленина 5 в Нарве", "tn Lenina 5, Narva"),
    ],
)
def test_russian_addresses(text: str, value: str) -> None:
    found = find_address(text, (), "ru")
    assert found is not None and found.value == value


@pytest.mark.parametrize(
    "text",
    [
        "show me the last 3 votes",
        "holidays in 2026",
        "tax for 123ABC in 2026",
        "näita 5 viimast hääletust",
        "через 3 дня",
        "покажи последние 5 голосований",
    ],
)
def test_numbers_that_are_no_house_numbers(text: str) -> None:
    assert (
        find_address(
            text, ((text.find("123ABC"), text.find("123ABC") + 6),) if "123ABC" in text else (), "en"
        )
        is None
    )


@pytest.mark.parametrize(
    ("reply", "lang"),
    [
        ("My registration number is 123ABC", "en"),
        ("mu registreerimisnumber on 123ABC", "et"),
        ("мой номер 123ABC", "ru"),
    ],
)
def test_a_reply_for_another_asked_value_leaves_no_address(
    countries: CountryNames, reply: str, lang: str
) -> None:
    params = [
        ParamSpec(name="address", required=True, description="The address to look up"),
        ParamSpec(
            name="regNr", required=True, description="The vehicle registration plate number (e.g., 123ABC)"
        ),
    ]
    values = RuleExtractor(countries).extract(reply, params, language=lang, asked=["address", "regNr"])  # type: ignore[arg-type]
    assert values == {"regNr": "123ABC"}


# Russian pronouns are told by pymorphy3's tag (NPRO), the others by the closed class.
RUSSIAN_PRONOUNS = [
    "я",
    "меня",
    "мне",
    "ты",
    "тебя",
    "он",
    "она",
    "его",
    "её",
    "мы",
    "нас",
    "вы",
    "вас",
    "они",
    "их",
]


@pytest.mark.parametrize("pronoun", sorted(PERSONAL_PRONOUNS) + RUSSIAN_PRONOUNS)
@settings(max_examples=8, deadline=None)
@given(
    street=st.sampled_from(STREETS),
    house=st.integers(min_value=1, max_value=199),
    capitalised=st.booleans(),
)
def test_a_pronoun_after_an_address_or_in_a_correction_is_no_town(
    pronoun: str, street: str, house: int, capitalised: bool
) -> None:
    word = pronoun.capitalize() if capitalised else pronoun
    lang = "ru" if pronoun in RUSSIAN_PRONOUNS else "et"
    found = find_address(f"{street} {house} {word}", lang=lang)
    assert found is not None and found.value == f"{street} {house}"
    assert corrected_town(word, lang) is None


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@pytest.mark.parametrize(("town", "written"), [(t[0], t[0].lower()) for t in TOWNS])
def test_a_town_after_an_address_is_still_its_town(lang: str, town: str, written: str) -> None:
    found = find_address(f"Rüütli 1 {written}", lang=lang)
    assert found is not None and found.value == f"Rüütli 1, {town}"
    assert corrected_town(written, lang) == town.lower()


@pytest.mark.parametrize(
    ("address", "broader"),
    [
        ("Raekoja plats 1, Tartu", ["Raekoja plats, Tartu", "Raekoja plats", "Tartu", "Ra plats 1, Tartu"]),
        ("Akademia tee 3", ["Akademia tee", "Ak tee 3"]),
        ("Raekoja plats", []),
        ("Tartu", []),
        ("Suur-Sepa 16", ["Suur-Sepa"]),
    ],
)
def test_broader_searches_for_an_address(address: str, broader: list[str]) -> None:
    assert broader_addresses(address) == broader


@settings(max_examples=80, deadline=None)
@given(
    street=st.sampled_from(STREETS),
    kind=st.sampled_from(["tn", "mnt", "pst", "tee", ""]),
    house=st.from_regex(r"[1-9][0-9]{0,2}[a-c]?", fullmatch=True),
    town=st.sampled_from(["", *(t[0] for t in TOWNS)]),
)
def test_broader_searches_drop_the_house_number_and_keep_to_the_street_or_town(
    street: str, kind: str, house: str, town: str
) -> None:
    """Every broader search of a street address leaves out its house number or keeps the
    street's first letters only, none repeats the address, and there are few."""
    address = " ".join(w for w in (street, kind, house) if w) + (f", {town}" if town else "")
    broader = broader_addresses(address)
    assert 1 <= len(broader) <= MAX_BROADER
    assert address not in broader and len(set(broader)) == len(broader)
    for value in broader:
        assert house not in value.split(",")[0].split() or value.split()[0] == street[:2]
    assert broader[0].startswith(" ".join(w for w in (street, kind) if w))


def test_a_long_address_is_broadened_promptly() -> None:
    long = "Raekoja " * 12_500 + "plats 1, Tartu"  # 100,000 characters
    assert broader_addresses(long)[-1].startswith("Ra ")


_FUNCTION_WORDS = sorted(w for w in STOPWORDS if w.isalpha() and len(w) >= 2 and w not in ("tee", "plats"))


@settings(max_examples=80, deadline=None)
@given(word=st.sampled_from(_FUNCTION_WORDS), street=st.sampled_from(STREETS), house=st.integers(1, 99))
def test_a_function_word_before_a_street_is_no_part_of_it(word: str, street: str, house: int) -> None:
    """'ok siis viru 4', 'а теперь виру 4': the function words of the three languages
    (services.text.STOPWORDS) before a street are the sentence's, never the street's."""
    mention = find_address(f"{word} {street.lower()} {house}", lang="et")
    assert mention is not None
    assert mention.value == f"{street} {house}"
