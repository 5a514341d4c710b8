"""Month and weekday names typed with a typo, in every case form (en/et/ru): one edit (a swap of two
neighbours, a missing, doubled or wrong letter) anywhere but the first letter of babel's
name of a month or weekday, or of its Estonian genitive stem with a case ending, still names it;
everyday words one edit from a short month name do not; the matching is bounded."""

from __future__ import annotations

from datetime import date

import pytest
from babel import Locale
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import OSA

from loop_svc.extraction.calendar_words import MAX_LETTERS, MIN_FORM_LETTERS, typo_month, typo_weekday
from loop_svc.extraction.dates import find_dates, month_of
from loop_svc.extraction.relative import weekday_of
from loop_svc.extraction.text import ESTONIAN_CASE_ENDINGS

ESTONIAN_GENITIVE = {
    1: "jaanuari", 2: "veebruari", 3: "märtsi", 4: "aprilli", 8: "augusti",
    9: "septembri", 10: "oktoobri", 11: "novembri", 12: "detsembri",
}  # fmt: skip
RUSSIAN_ENDINGS = ("ь", "я", "е", "ю", "ём")


def _names(lang: str) -> list[tuple[str, int]]:
    months = Locale.parse(lang).months["format"]["wide"]
    return [
        (name.lower(), int(number)) for number, name in months.items() if len(name) >= MIN_FORM_LETTERS + 1
    ]


def _forms() -> list[tuple[str, str, int]]:
    """(language, a month's name in some case form, its number)."""
    forms = [("en", name, month) for name, month in _names("en")]
    forms += [("et", name, month) for name, month in _names("et")]
    forms += [
        ("et", stem + ending, month)
        for month, stem in ESTONIAN_GENITIVE.items()
        if len(stem) > MIN_FORM_LETTERS
        for ending in ("s", "st", "ni", "l")
    ]
    # The Russian stem ("декабр") with the case endings people write ("в декабре", "декабря").
    forms += [("ru", name[:-1] + ending, month) for name, month in _names("ru") for ending in RUSSIAN_ENDINGS]
    return forms


FORMS = _forms()


def _typo(word: str, stem_length: int, kind: str, at: int, letter: str) -> str:
    """One edit inside the first `stem_length` letters, never the first letter."""
    i = 1 + at % max(1, stem_length - 2)
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    return word[:i] + letter + word[i + 1 :]


@pytest.mark.parametrize(("lang", "form", "month"), FORMS)
@given(
    kind=st.sampled_from(["swap", "drop", "double", "replace"]),
    at=st.integers(0, 20),
    letter=st.sampled_from("aeiouyx"),
)
@settings(max_examples=12, deadline=None)
def test_one_typo_in_a_month_name_still_names_it(
    lang: str, form: str, month: int, kind: str, at: int, letter: str
) -> None:
    stem_length = len(form.rstrip("".join({*ESTONIAN_CASE_ENDINGS, *RUSSIAN_ENDINGS})) or form)
    typo = _typo(form, min(stem_length, len(form) - 1), kind, at, letter if lang != "ru" else "о")
    assume(typo != form)
    assert month_of(typo) == month, typo


@pytest.mark.parametrize(
    ("lang", "text", "first"),
    [
        ("en", "public holidays in finland in janaury", date(2027, 1, 1)),
        ("en", "school holidays in febuary 2027", date(2027, 2, 1)),
        ("en", "holidays in spetember 2027", date(2027, 9, 1)),
        ("et", "riigipühad detsmbris", date(2026, 12, 1)),
        ("et", "koolivaheajad veebuaris", date(2027, 2, 1)),
        ("ru", "праздники в фефрале 2027", date(2027, 2, 1)),
        ("ru", "праздники в декбаре", date(2026, 12, 1)),
    ],
)
def test_a_misspelt_month_is_the_whole_month(lang: str, text: str, first: date) -> None:
    found = find_dates(text, lang, date(2026, 12, 3))  # type: ignore[arg-type]
    assert [(d.value, d.last and d.last.month) for d in found.dates] == [(first, first.month)]


# Words one edit from a short month name ("march", "marts", "марта", "june"), or sharing
# a long one's letters, are no months: short names match only exactly.
@pytest.mark.parametrize(
    "word",
    "match marks mark карта марку julia detail member remember number novel juust jaani maybe junior doctor "
    "augur retsept sentence".split(),
)
def test_everyday_words_are_no_months(word: str) -> None:
    assert month_of(word) is None


WEEKDAY_FORMS = [
    *[
        (name, day)
        for day, name in enumerate(
            ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
        )
    ],
    *[
        (stem + ending, day)
        for day, stem in enumerate(
            ("esmaspäeva", "teisipäeva", "kolmapäeva", "neljapäeva", "", "laupäeva", "pühapäeva")
        )
        if stem
        for ending in ("l", "ks", "st", "ni")
    ],
    *[
        (name, day)
        for day, name in enumerate(
            ("понедельник", "вторник", "", "четверг", "пятницу", "субботу", "воскресенье")
        )
        if name
    ],
]


@pytest.mark.parametrize(("form", "day"), WEEKDAY_FORMS)
@given(kind=st.sampled_from(["swap", "drop", "double", "replace"]), at=st.integers(0, 20))
@settings(max_examples=10, deadline=None)
def test_one_typo_in_a_weekday_name_still_names_it(form: str, day: int, kind: str, at: int) -> None:
    typo = _typo(form, len(form) - 2, kind, at, "y" if form.isascii() else "о")
    assume(typo != form and len(typo) >= 6)
    # "tursday" is as near to Tuesday as to Thursday: names no day.
    assume(not any(OSA.distance(typo[: len(other)], other) <= 1 for other, d in WEEKDAY_FORMS if d != day))
    found = weekday_of(typo)
    assert found is not None and found[0] == day, typo


@pytest.mark.parametrize("word", "money mõnda monda satire fridge sunset thirsty tuesdays".split())
def test_everyday_words_are_no_weekdays(word: str) -> None:
    assert typo_weekday(word) in (None, 1)  # "tuesdays" is Tuesday


@given(
    st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzабвгдеёжзийклмнопрстуфхцчшщъыьэюяäöüõ",
        min_size=MAX_LETTERS + 1,
        max_size=400,
    )
)
@settings(max_examples=30, deadline=None)
def test_long_words_are_not_compared(word: str) -> None:
    assert typo_month(word) is None and typo_weekday(word) is None
