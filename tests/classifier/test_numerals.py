"""Counts of a time unit spelled out on a page are written in digits in an answer, in
three languages and their case forms; other number words and look-alikes stay."""

from __future__ import annotations

import time

import pytest

from classifier_svc.numerals import with_digits

EN_UNITS = ["years", "months", "weeks", "days", "working days", "hours", "minutes"]
ET_UNITS = ["aastat", "kuud", "nädalat", "päeva", "tööpäeva", "tundi", "minutit"]
RU_UNITS = ["лет", "месяцев", "недель", "дней", "рабочих дней", "часов", "минут"]
EN = {"two": 2, "three": 3, "five": 5, "ten": 10, "thirty": 30}
ET = {"kaks": 2, "kolm": 3, "viis": 5, "kümme": 10, "kolmkümmend": 30}
ET_GENITIVE = {"kahe": 2, "kolme": 3, "viie": 5, "kümne": 10, "kolmekümne": 30}
# Russian number words in the genitive, as "в течение … дней" has them.
RU = {"двух": 2, "трёх": 3, "трех": 3, "пяти": 5, "десяти": 10, "тридцати": 30}


@pytest.mark.parametrize("unit", EN_UNITS)
@pytest.mark.parametrize(("word", "value"), EN.items())
def test_english_counts(word: str, value: int, unit: str) -> None:
    assert with_digits(f"It is done within {word} {unit}.", "en") == f"It is done within {value} {unit}."
    assert with_digits(f"{word.capitalize()} {unit} at most.", "en") == f"{value} {unit} at most."


@pytest.mark.parametrize("unit", ET_UNITS)
@pytest.mark.parametrize(("word", "value"), ET.items())
def test_estonian_counts(word: str, value: int, unit: str) -> None:
    assert with_digits(f"See võtab {word} {unit}.", "et") == f"See võtab {value} {unit}."


@pytest.mark.parametrize("ending", ["", "l", "ks", "st"])
@pytest.mark.parametrize(("word", "value"), ET_GENITIVE.items())
def test_estonian_case_forms(word: str, value: int, ending: str) -> None:
    assert with_digits(f"{word}{ending} tööpäeva jooksul", "et") == f"{value}{ending and ''} tööpäeva jooksul"


@pytest.mark.parametrize("unit", RU_UNITS)
@pytest.mark.parametrize(("word", "value"), RU.items())
def test_russian_counts_in_their_case(word: str, value: int, unit: str) -> None:
    assert with_digits(f"в течение {word} {unit}", "ru") == f"в течение {value} {unit}"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("One of the parents can use it.", "en"),
        ("within one month", "en"),
        ("Ten of them were accepted.", "en"),
        ("Kolmapäeval on kolm korda.", "et"),
        ("kolmeaastaseks saamiseni", "et"),
        ("viisa on vajalik", "et"),
        ("пять раз", "ru"),
        ("одного месяца", "ru"),
        ("семья из трёх человек", "ru"),
    ],
)
def test_other_numbers_and_look_alikes_stay(text: str, lang: str) -> None:
    assert with_digits(text, lang) == text


def test_a_long_text_costs_linear_time() -> None:
    for pattern, lang in (("ten ", "en"), ("kümne ", "et"), ("десяти ", "ru"), ("ten days ", "en")):
        text = pattern * (100_000 // len(pattern))
        started = time.perf_counter()
        with_digits(text, lang)
        assert time.perf_counter() - started < 5.0
