"""Counts a page spells out in words, written as digits in an answer: "within ten working
days" → "within 10 working days", "kolme tunni võrra" → "3 tunni võrra", "в течение
десяти рабочих дней" → "в течение 10 рабочих дней". A citizen scans an answer for the
number; the page's wording is kept otherwise.

Only a count of a unit of time (years, months, weeks, days, hours, minutes) is written
so: "one of the parents" or "kolmapäev" (Wednesday) stay as they are. "One" stays a word
too ("within one month" reads as the page wrote it). Russian number words are read in
all their case forms (pymorphy3's lexemes: "десяти", "трёх" are "десять", "три"); Estonian ones by their
nominative, genitive and the common case endings, Estonian compounds ("kolmeaastane")
are left alone.
"""

from __future__ import annotations

import re
from functools import cache

from services.language import Lang

_EN = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "sixty": 60,
    "ninety": 90,
}
# Estonian: nominative and genitive stem; case endings are added to the genitive.
_ET = {
    ("kaks", "kahe"): 2,
    ("kolm", "kolme"): 3,
    ("neli", "nelja"): 4,
    ("viis", "viie"): 5,
    ("kuus", "kuue"): 6,
    ("seitse", "seitsme"): 7,
    ("kaheksa", "kaheksa"): 8,
    ("üheksa", "üheksa"): 9,
    ("kümme", "kümne"): 10,
    ("kaksteist", "kaheteistkümne"): 12,
    ("viisteist", "viieteistkümne"): 15,
    ("kakskümmend", "kahekümne"): 20,
    ("kolmkümmend", "kolmekümne"): 30,
    ("kuuskümmend", "kuuekümne"): 60,
    ("üheksakümmend", "üheksakümne"): 90,
}
_ET_ENDINGS = ("", "l", "s", "st", "ks", "ga", "le", "ni", "lt", "sse", "na", "ta")
_RU = {
    "два": 2,
    "две": 2,
    "три": 3,
    "четыре": 4,
    "пять": 5,
    "шесть": 6,
    "семь": 7,
    "восемь": 8,
    "девять": 9,
    "десять": 10,
    "одиннадцать": 11,
    "двенадцать": 12,
    "пятнадцать": 15,
    "двадцать": 20,
    "тридцать": 30,
    "шестьдесят": 60,
    "девяносто": 90,
}
# The unit a count is of, at the start of the next word (or the one after, past one
# adjective: "ten working days", "десяти рабочих дней", "kümne tööpäeva").
_UNITS: dict[Lang, tuple[str, ...]] = {
    "en": ("year", "month", "week", "day", "hour", "minute", "working day", "business day", "calendar day"),
    "et": ("aasta", "kuu", "nädal", "päev", "tööpäev", "tund", "tunni", "minut", "kalendripäev"),
    "ru": ("год", "лет", "месяц", "недел", "дн", "день", "час", "минут", "рабоч", "календарн", "сут"),
}
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")


@cache
def _et_forms() -> dict[str, int]:
    forms: dict[str, int] = {}
    for (nominative, genitive), value in _ET.items():
        forms[nominative] = value
        for ending in _ET_ENDINGS:
            forms[genitive + ending] = value
    return forms


@cache
def _morph():  # type: ignore[no-untyped-def]
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


@cache
def _ru_forms() -> dict[str, int]:
    """Every case form of the Russian number words above ("десяти", "трёх", "двумя"),
    from pymorphy3's lexemes once: a word is then looked up, never parsed."""
    morph = _morph()
    forms: dict[str, int] = {}
    for lemma, value in _RU.items():
        for parse in morph.parse(lemma):
            if "NUMR" not in parse.tag:
                continue
            for form in parse.lexeme:
                forms.setdefault(form.word, value)
                forms.setdefault(form.word.replace("ё", "е"), value)
    return forms


def _value(word: str, lang: Lang) -> int | None:
    lowered = word.lower()
    if lang == "en":
        return _EN.get(lowered)
    if lang == "et":
        return _et_forms().get(lowered)
    if lang == "ru":
        return _ru_forms().get(lowered) or _ru_forms().get(lowered.replace("ё", "е"))
    return None


def _is_unit(words: list[str], lang: Lang) -> bool:
    units = _UNITS[lang]
    joined = " ".join(w.lower() for w in words)
    return any(joined.startswith(unit) for unit in units)


def with_digits(text: str, lang: Lang) -> str:
    """The text with each spelled-out count of a time unit written in digits."""
    words = list(_WORD.finditer(text))
    if not words or lang not in _UNITS:
        return text
    out: list[str] = []
    last = 0
    for i, match in enumerate(words):
        value = _value(match.group(0), lang)
        if value is None:
            continue
        following = [m.group(0) for m in words[i + 1 : i + 3]]
        # The unit is the next word, or the one after it past an adjective.
        if not following or not (_is_unit(following, lang) or _is_unit(following[1:2], lang)):
            continue
        # Only words that follow one another with a space between them count.
        gap = text[match.end() : words[i + 1].start()]
        if gap.strip():
            continue
        out.append(text[last : match.start()])
        out.append(str(value))
        last = match.end()
    out.append(text[last:])
    return "".join(out)
