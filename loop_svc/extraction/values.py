"""Yes/no answers, numbers, enumeration values and registration numbers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from loop_svc.extraction.text import Word, outside, stem, words
from services.language import Lang

_YES = frozenset(
    {
        "yes",
        "yeah",
        "yep",
        "sure",
        "ok",
        "okay",
        "y",
        "continue",
        "true",
        "jah",
        "jaa",
        "muidugi",
        "olgu",
        "jätka",
        "jätkame",
        "jätkan",
        "да",
        "конечно",
        "давай",
        "давайте",
        "продолжим",
        "продолжай",
        "продолжаем",
        "ок",
    }
)
_NO = frozenset(
    {"no", "nope", "n", "stop", "false", "cancel", "ei", "ära", "lõpeta", "нет", "стоп", "не", "отмена"}
)
_NUMBER = re.compile(r"(?<![\w.,])[-+]?\d+(?:[.,]\d+)?(?![\w]|[.,]\d)")
_INTEGER = re.compile(r"(?<![\w.,])[-+]?\d+(?![\w]|[.,]\d)")
# Estonian plates are "123ABC"; other formats mix at least two letters and digits.
_REGISTRATION = re.compile(
    r"(?<!\w)(\d{3}\s?[A-Za-z]{3}|(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z]{2})[A-Za-z0-9]{4,8})(?!\w)"
)


def yes_no(text: str) -> bool | None:
    """True for a yes-reply ("jah", "да, продолжим"), False for a no, else None."""
    tokens = [w.lower for w in words(text)]
    if not tokens:
        return None
    # The first word decides: "yes, no problem", "да, не против" are yeses.
    if tokens[0] in _YES:
        return True
    if tokens[0] in _NO:
        return False
    return None


# "I don't know" ("ei tea", "no idea", "не знаю") gives no value but does not decline: the
# question stays, and the continuation prompt comes in its turn.
_WAY_OUT = re.compile(
    r"^\W*(?!(?:no|ei)\s+(?:idea|clue|tea|tean|tia)\b)"
    r"(?:no|nope|nah|cancel|stop|forget it|never ?mind|something else|nothing|not now|"
    r"ei|ei aitäh|ei taha|katkesta|unusta|lõpeta|pole vaja|mitte midagi|midagi muud|"
    r"нет|не надо|не нужно|отмена|отмени|забудь|хватит|стоп|ничего|что-то другое|другое)\b[\W\w]{0,20}$",
    re.I,
)


def wants_out(text: str) -> bool:
    """A short reply that declines the pending question ("no", "cancel", "something else",
    "ei", "katkesta", "нет, не надо")."""
    return len(text.split()) <= 5 and bool(_WAY_OUT.match(text.strip()))


@dataclass(frozen=True)
class Found:
    value: str
    start: int
    end: int


def numbers(text: str, *, integers_only: bool, taken: Sequence[tuple[int, int]] = ()) -> list[Found]:
    pattern = _INTEGER if integers_only else _NUMBER
    return [
        Found(m.group(0).replace(",", ".").lstrip("+"), m.start(), m.end())
        for m in pattern.finditer(text)
        if outside(taken, m.start(), m.end())
    ]


_NUMBER_WORDS = {
    **dict.fromkeys(("one", "üks", "ühe", "один", "одна", "одного", "одну"), "1"),
    **dict.fromkeys(("two", "kaks", "kahe", "два", "две", "двух", "couple"), "2"),
    **dict.fromkeys(("three", "kolm", "kolme", "три", "трёх", "трех"), "3"),
    **dict.fromkeys(("four", "neli", "nelja", "четыре", "четырёх", "четырех"), "4"),
    **dict.fromkeys(("five", "viis", "viie", "пять", "пяти"), "5"),
    **dict.fromkeys(("six", "kuus", "kuue", "шесть", "шести"), "6"),
    **dict.fromkeys(("seven", "seitse", "seitsme", "семь", "семи"), "7"),
    **dict.fromkeys(("eight", "kaheksa", "восемь", "восьми"), "8"),
    **dict.fromkeys(("nine", "üheksa", "девять", "девяти"), "9"),
    **dict.fromkeys(("ten", "kümme", "kümne", "десять", "десяти"), "10"),
}


# Words after which a clause-final "one" still counts: "the last one", "show me one".
_COUNTING_BEFORE_ONE = frozenset(
    "a the last latest first next only just me show give top newest recent previous most final".split()
)
_CLAUSE_END = re.compile(r"\s*(?:(?:please|pls|then|too)\b\s*)?(?:[?!.,;:]|$|(?:and|or|but)\b)")


def _prop_word_one(text: str, tokens: Sequence[Word], i: int) -> bool:
    """The English "one" standing for a noun said before ("the income tax one?", "that
    one", "the weapons act one"): at the end of its clause after a word that is no count
    word, it counts nothing."""
    if tokens[i].lower != "one" or i == 0:
        return False
    before = tokens[i - 1].lower
    if before in _COUNTING_BEFORE_ONE or not before.isalpha():
        return False
    return bool(_CLAUSE_END.match(text, tokens[i].end))


def number_words(text: str, taken: Sequence[tuple[int, int]] = ()) -> list[Found]:
    """Numbers written as words ("two", "kaks", "две") as digits — not the "one" of "one
    way" or "one of them", nor the one that stands for a noun ("the income tax one"),
    which count nothing."""
    tokens = words(text)
    return [
        Found(_NUMBER_WORDS[w.lower], w.start, w.end)
        for i, w in enumerate(tokens)
        if w.lower in _NUMBER_WORDS
        and outside(taken, w.start, w.end)
        and not (i + 1 < len(tokens) and tokens[i + 1].lower in ("way", "of"))
        and not _prop_word_one(text, tokens, i)
    ]


def enum_value(text: str, allowed: Sequence[str], lang: Lang) -> Found | None:
    """The allowed value the message names: whole words, case-insensitive, also
    by stem ("weekly" in "weekly reports"; "школьные" for "школьный"). Several
    different values named → the first one."""
    tokens = words(text)
    if not tokens:
        return None
    lowered = [t.lower for t in tokens]
    stemmed = [stem(t.text, lang) for t in tokens]
    best: Found | None = None
    for value in allowed:
        value_words = [w.lower for w in words(value.replace("_", " "))]
        if not value_words:
            continue
        value_stems = [stem(w, lang) for w in value_words]
        n = len(value_words)
        for i in range(len(tokens) - n + 1):
            if lowered[i : i + n] == value_words or stemmed[i : i + n] == value_stems:
                if best is None or tokens[i].start < best.start:
                    best = Found(value, tokens[i].start, tokens[i + n - 1].end)
                break
    return best


def registration_number(text: str) -> Found | None:
    return next(iter(registration_numbers(text)), None)


def registration_numbers(text: str) -> list[Found]:
    """Every registration number in `text`, in order."""
    return [
        Found(re.sub(r"\s", "", m.group(0)).upper(), m.start(), m.end()) for m in _REGISTRATION.finditer(text)
    ]
