"""Small talk as chats spell it: letters drawn out for effect ("hiii", "tereee",
"спасибооо"), Russian typed in Latin letters ("spasibo", "kto ty?"), chat spelling of a
verb ("r u a bot?") and "such a" inside "who are you" ("kes sa selline oled", "ты кто
такой"). Generated from the word classes, not from sentences; requests stay requests."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier_svc.small_talk import (
    SmallTalkKind,
    classify_small_talk,
    russian_from_latin,
    unstretched,
)

# One-word small talk per language and the kind it is.
G, T, B = SmallTalkKind.GREETING, SmallTalkKind.THANKS, SmallTalkKind.GOODBYE
WORDS = {
    "en": [("hi", G), ("hey", G), ("thanks", T), ("bye", B), ("hello", G)],
    "et": [("tere", G), ("tervist", G), ("aitäh", T), ("tänud", T), ("nägemist", B)],
    "ru": [("привет", G), ("спасибо", T), ("пока", B), ("здравствуйте", G)],
}
CASES = [(lang, word, kind) for lang, items in WORDS.items() for word, kind in items]


@pytest.mark.parametrize(("lang", "word", "kind"), CASES)
@pytest.mark.parametrize("times", [2, 3, 5])
@pytest.mark.parametrize("tail", ["", "!", "!!", " :)"])
def test_a_drawn_out_last_letter_is_the_same_word(
    lang: str, word: str, kind: SmallTalkKind, times: int, tail: str
) -> None:
    talk = classify_small_talk(word + word[-1] * (times - 1) + tail)
    assert talk is not None and talk.kind is kind and talk.language == lang


@pytest.mark.parametrize(("lang", "word", "kind"), [c for c in CASES if len(c[1]) > 3])
def test_a_vowel_drawn_out_inside_is_the_same_word(lang: str, word: str, kind: SmallTalkKind) -> None:
    at = next(i for i, ch in enumerate(word[1:-1], 1) if ch in "aeiouäõöüаеиоуыэюя")
    talk = classify_small_talk(word[:at] + word[at] * 4 + word[at + 1 :])
    assert talk is not None and talk.kind is kind and talk.language == lang


def test_double_letters_inside_a_word_stay() -> None:
    assert unstretched("hello, good, aitäh") == "hello, good, aitäh"
    assert unstretched("hiii tereee") == "hi tere"
    # A double letter at a word's end is squeezed only when the text as written is no
    # small talk: "all good, see you" is read as written.
    assert classify_small_talk("all good, see you") is not None


LATIN_RUSSIAN = [
    ("spasibo", SmallTalkKind.THANKS),
    ("spasibo bolshoe", SmallTalkKind.THANKS),
    ("bolshoe spasibo, vy ochen pomogli", SmallTalkKind.THANKS),
    ("privet", SmallTalkKind.GREETING),
    ("zdravstvujte", SmallTalkKind.GREETING),
    ("dobryj den", SmallTalkKind.GREETING),
    ("poka", SmallTalkKind.GOODBYE),
    ("do svidaniya", SmallTalkKind.GOODBYE),
    ("kak dela?", SmallTalkKind.HOW_ARE_YOU),
    ("kto ty?", SmallTalkKind.IDENTITY),
    ("chto ty umeesh?", SmallTalkKind.CAPABILITIES),
]


@pytest.mark.parametrize(("text", "kind"), LATIN_RUSSIAN)
@pytest.mark.parametrize("case", [str.lower, str.capitalize, str.upper])
def test_russian_in_latin_letters_is_russian_small_talk(text: str, kind: SmallTalkKind, case) -> None:
    talk = classify_small_talk(case(text))
    assert talk is not None and talk.kind is kind and talk.language == "ru"


@pytest.mark.parametrize(
    "text",
    [
        "privet, kakie prazdniki v latvii?",
        "spasibo, a skolko stoit elektrichestvo zavtra?",
        "no",
        "ok so what about latvia",
        "tere, mis on elektri hind homme?",
    ],
)
def test_a_request_in_latin_letters_is_no_small_talk(text: str) -> None:
    assert classify_small_talk(text) is None


def test_other_letters_are_not_read_as_russian() -> None:
    assert russian_from_latin("aitäh") is None
    assert russian_from_latin("спасибо") is None
    assert russian_from_latin("kto ty") == "кто ты"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("r u a real person or a bot?", "en"),
        ("r u human", "en"),
        ("kes sa selline oled?", "et"),
        ("ты кто такой?", "ru"),
        ("а кто ты такая?", "ru"),
    ],
)
def test_who_are_you_as_chats_ask_it(text: str, lang: str) -> None:
    talk = classify_small_talk(text)
    assert talk is not None and talk.kind is SmallTalkKind.IDENTITY and talk.language == lang


@given(st.text(alphabet="aeh ioj'", min_size=1, max_size=60))
@settings(max_examples=200, deadline=None)
def test_latin_reading_is_total_on_latin_text(text: str) -> None:
    cyrillic = russian_from_latin(text)
    assert cyrillic is not None and not any("a" <= ch <= "z" for ch in cyrillic)


@pytest.mark.parametrize("pattern", ["a", "ab", "hii ", "sh", "aa1"])
def test_long_input_costs_linear_time(pattern: str) -> None:
    text = pattern * (100_000 // len(pattern))
    started = time.perf_counter()
    unstretched(text)
    russian_from_latin(text)
    classify_small_talk(text)
    assert time.perf_counter() - started < 5.0
