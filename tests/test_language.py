"""The language a citizen's message is in, which decides the reply's language: generated
over templates × names × values in three languages (bench/language_sets.py), through the
real detector (py3langid, cyrtranslit, pymorphy3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.language_sets import (
    EN_WITH_NAMES,
    HOLIDAYS,
    KNOWLEDGE,
    PLATES,
    RU_PURE,
    STREETS,
    TOWNS,
    LabelledText,
    generated_sets,
    typed_latin,
)
from indexer_svc.knowledge.sources import read_source
from services.language import TELLING_CHARS, LanguageDetector, RussianInLatin

SETS = generated_sets()
# Each set's floor: what it measured when this detector landed, less a case or two of slack.
FLOORS = {
    "en_with_et_names": 0.96,
    "et_with_et_names": 1.0,
    "ru_with_et_names": 1.0,
    "en_pure": 1.0,
    "et_pure": 1.0,
    "et_no_diacritics": 0.98,
    "ru_pure": 1.0,
    "ru_in_latin": 0.95,
    "short_replies": 1.0,
    "pages_en": 0.98,
    "pages_et": 1.0,
    "pages_ru": 1.0,
}


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def test_every_set_has_a_floor() -> None:
    assert set(SETS) == set(FLOORS)


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_generated_set_is_told_apart(detector: LanguageDetector, name: str) -> None:
    cases = SETS[name]
    misses = [(c.text, got) for c in cases if (got := detector.detect(c.text, fallback=c.fallback)) != c.lang]
    assert 1 - len(misses) / len(cases) >= FLOORS[name], misses


_NAME = st.sampled_from(STREETS + TOWNS + HOLIDAYS + PLATES)


@settings(max_examples=40, deadline=None)
@given(
    template=st.sampled_from(EN_WITH_NAMES),
    street=st.sampled_from(STREETS[:6]),
    town=st.sampled_from(TOWNS),
    holiday=st.sampled_from(HOLIDAYS[:6]),
    plate=st.sampled_from(PLATES),
    year=st.sampled_from(("2026", "2027", "2028")),
)
def test_estonian_names_do_not_make_an_english_question_estonian(
    detector: LanguageDetector, template: str, street: str, town: str, holiday: str, plate: str, year: str
) -> None:
    text = template.format(street=street, town=town, holiday=holiday, plate=plate, year=year)
    assert detector.detect(text) == "en", text


@settings(max_examples=40, deadline=None)
@given(
    template=st.sampled_from(RU_PURE),
    n=st.integers(2, 12),
    month=st.sampled_from(("января", "марта", "мая", "августа", "декабря")),
    country=st.sampled_from(("эстонии", "латвии", "литве", "финляндии", "германии")),
    habit=st.sampled_from(("y", "j")),
)
def test_russian_typed_in_latin_letters_is_russian(
    detector: LanguageDetector, template: str, n: int, month: str, country: str, habit: str
) -> None:
    text = typed_latin(template.format(n=n, month_ru=month, country_ru=country, plate="123ABC"), habit)
    assert detector.detect(text) == "ru", text


@pytest.mark.parametrize(
    "text",
    [
        "what is the price of internet in Tallinn",
        "Processing time",
        "How much and for how long",
        "where is Viru 4 in Tartu?",
        "kas Tartu on suurem kui Narva",
        "mis kell algab kino Tartus",
    ],
)
def test_loanwords_and_names_alone_are_not_russian(detector: LanguageDetector, text: str) -> None:
    # "internet", "Tartu", "Narva" are Russian dictionary words too; words that read as
    # Russian only as names or as loanwords in an English sentence never make it Russian.
    assert detector.detect(text) != "ru"


def test_the_russian_share_counts_dictionary_words_not_names() -> None:
    russian = RussianInLatin()
    assert russian.share("skolko stoit elektrichestvo zavtra") == 1.0
    assert russian.share("status zajavlenija segodnja") == 1.0  # "j" for the iotated vowels
    assert russian.share("kas Tartu on suurem") < 0.5  # "Tartu" is a place, not a word
    assert russian.words("gde nahoditsya Viru 4 v Tallinne") == ["gde", "nahoditsya"]


@pytest.mark.parametrize("chat", ["en", "et", "ru"])
@pytest.mark.parametrize("reply", ["2027", "123ABC", "ok", "2026-01-01", "Viru 4", "456 DEF"])
def test_a_reply_without_language_keeps_the_chats(detector: LanguageDetector, chat: str, reply: str) -> None:
    earlier = {
        "en": ["what is the vehicle tax for my car"],
        "et": ["kui suur on mu sõidukimaks"],
        "ru": ["kakoy nalog na moyu mashinu"],
    }[chat]
    assert detector.detect_in_chat(reply, ["", *earlier]) == chat
    assert detector.detect_in_chat(reply, []) == "en"  # a first message with no language: the default


def test_a_message_with_its_own_language_does_not_take_the_chats(detector: LanguageDetector) -> None:
    assert (
        detector.detect_in_chat("Millised riigipühad on Soomes detsembris?", ["what are the holidays"])
        == "et"
    )
    assert detector.detect_in_chat("kakie prazdniki v estonii v dekabre", ["what are the holidays"]) == "ru"


def test_page_fragments_take_the_pages_declared_language(detector: LanguageDetector, tmp_path: Path) -> None:
    # A page's language is what it declares (front matter, else its file name), never a
    # guess from its text: a heading or a short page reads as anything.
    for page in sorted(KNOWLEDGE.glob("*.*.md")):
        declared = page.name.split(".")[-2]
        body = page.read_text(encoding="utf-8").split("---", 2)[-1]
        for line in [ln for ln in body.splitlines() if ln.startswith("#")][:3]:
            fragment = tmp_path / f"fragment.{declared}.md"
            fragment.write_text(f"{line}\n\nTallinn, Pärnu mnt 10, 2026.\n", encoding="utf-8")
            assert read_source(fragment, detector).language == declared, line


def test_a_page_without_a_declared_language_is_read_from_its_text(
    detector: LanguageDetector, tmp_path: Path
) -> None:
    for page in sorted(KNOWLEDGE.glob("*.*.md")):
        declared = page.name.split(".")[-2]
        body = page.read_text(encoding="utf-8").split("---", 2)[-1]
        undeclared = tmp_path / f"{page.name.split('.')[0]}.md"
        undeclared.write_text(body, encoding="utf-8")
        assert read_source(undeclared, detector).language == declared, page.name


def test_labelled_cases_carry_a_supported_language() -> None:
    assert all(isinstance(c, LabelledText) and c.lang in ("en", "et", "ru") for s in SETS.values() for c in s)


class _ReadTexts(RussianInLatin):
    """The real dictionary look, noting how much text it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.lengths: list[int] = []

    def words(self, text: str) -> list[str]:
        self.lengths.append(len(text))
        return super().words(text)


@pytest.mark.parametrize(
    ("message", "language"),
    [
        ("kakie prazdniki v estonii v dekabre i kogda " * 400, "ru"),
        ("Mari Tamm elab Tartus ja Riias. " * 320, "et"),
        ("what are the public holidays in latvia next year " * 300, "en"),
    ],
)
def test_a_long_message_is_judged_by_its_opening_with_bounded_work(message: str, language: str) -> None:
    reader = _ReadTexts()
    detector = LanguageDetector(russian_in_latin=reader)
    assert detector.detect(message) == language
    assert all(n <= TELLING_CHARS for n in reader.lengths)


# Identifiers carry no language: a code of letters and digits inside a sentence must not
# tip it ("id card status AB1234567" was Russian). Sentences × generated codes.
SENTENCES_AROUND_A_CODE = {
    "en": [
        "id card status {}",
        "check my application {} please",
        "what is the tax for {}",
        "{} where do i pick it up",
    ],
    "et": [
        "taotluse {} staatus palun",
        "mis on {} maks sel aastal",
        "{} kust saan kätte",
        "kas {} on juba valmis",
    ],
    "ru": ["статус заявления {}", "какой налог на {}", "{} где забирать", "готово ли заявление {}"],
}


@settings(max_examples=60, deadline=None)
@given(
    lang=st.sampled_from(sorted(SENTENCES_AROUND_A_CODE)),
    template=st.integers(0, 3),
    letters=st.text("ABCDEHKLMNPRSTVXZ", min_size=1, max_size=3),
    digits=st.integers(100, 9_999_999_999),
    digits_first=st.booleans(),
)
def test_an_identifier_does_not_change_the_sentences_language(
    detector: LanguageDetector, lang: str, template: int, letters: str, digits: int, digits_first: bool
) -> None:
    code = f"{digits}{letters}" if digits_first else f"{letters}{digits}"
    text = SENTENCES_AROUND_A_CODE[lang][template].format(code)
    assert detector.detect(text) == lang, text


def test_identifiers_are_left_out_in_linear_time(detector: LanguageDetector) -> None:
    detector.detect("status " + "A1" * 50_000)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("048BMW maks", "et"),
        ("A1234567 olek", "et"),
        ("A1234567 staatus", "et"),
        ("123ABC налог", "ru"),
        ("EE7788990 ready?", "en"),
        ("123ABC tax", "en"),
        ("123ABC", "en"),
        ("2027", "en"),
    ],
)
def test_a_chats_first_short_message_around_an_identifier_keeps_its_words_language(
    message: str, expected: str
) -> None:
    """Too few letters to be sure, but the identifier's clear verdict on them is taken for
    a chat's first message; a message of an identifier alone, or a weak verdict, is English."""
    assert LanguageDetector().detect_in_chat(message, []) == expected


def test_a_short_reply_inside_a_chat_keeps_the_chats_language() -> None:
    assert LanguageDetector().detect_in_chat("123ABC hind", ["What is the tax for my car?"]) == "en"
