"""Identifiers shaped like the example in a parameter's description: "(e.g., 123ABC)"
makes a plate three digits then three letters, "(e.g. A1234567)" an application number
a letter prefix then digits. The shape is the example's runs of letters and digits, so
any catalogue's identifiers are read the same way, with no list of formats here.

Read as citizens type them: lower case ("a7000003"), a space between the runs
("456 def", "234 RTY"), Cyrillic letters that look like Latin ones ("А1234567",
"123АВС": А В Е К М Н О Р С Т У Х). A token that is plainly meant as the identifier but
has the wrong shape ("12AB", "A123", "XYZ") is reported, so the question can say what the
expected form is instead of asking again in the same words.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

import pycountry


def outside(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return not any(start < s_end and s_start < end for s_start, s_end in spans)


# Cyrillic letters a Latin identifier is often typed with (same key shapes).
_LOOK_ALIKES = str.maketrans("АВЕКМНОРСТУХавекмнорстух", "ABEKMHOPCTYXabekmhopctyx")
_EXAMPLE = re.compile(
    r"\b(?:e\.\s?g\.|eg\.|for example|for instance|näiteks|nt\.?|например)\s*,?\s*([^\s,;)]+)", re.I
)
_RUN = re.compile(r"[A-Za-z]+|\d+")


@dataclass(frozen=True)
class Run:
    letters: bool
    length: int
    # The lengths the API declares (its pattern's "{5,10}"); without them the lengths
    # are guessed from the example's run.
    declared: tuple[int, int] | None = None

    def bounds(self, first: bool) -> tuple[int, int]:
        if self.declared is not None:
            return self.declared
        if self.length >= 4:
            return max(1, self.length - 3), self.length + 3
        if first and self.letters and self.length <= 2:
            return 1, 3  # a series prefix: "A…", "AB…", "ABC…"
        return self.length, self.length

    def allows(self, length: int, first: bool) -> bool:
        low, high = self.bounds(first)
        return low <= length <= high


@dataclass(frozen=True)
class Shape:
    example: str
    runs: tuple[Run, ...]
    upper: bool

    def matches(self, token: str) -> bool:
        parts = _RUN.findall(token)
        if "".join(parts) != token or len(parts) != len(self.runs):
            return False
        return all(
            run.letters == part.isalpha() and run.allows(len(part), i == 0)
            for i, (run, part) in enumerate(zip(self.runs, parts, strict=True))
        )

    def normalise(self, token: str) -> str:
        return token.upper() if self.upper else token


def shape_of(description: str) -> Shape | None:
    """The shape of the description's example, when it mixes letters and digits."""
    for m in _EXAMPLE.finditer(description):
        example = m.group(1).strip(".")
        parts = _RUN.findall(example)
        if "".join(parts) != example or len(parts) < 2:
            continue
        if not any(p.isalpha() for p in parts) or not any(p.isdigit() for p in parts):
            continue
        runs = tuple(Run(p.isalpha(), len(p)) for p in parts)
        letters = "".join(p for p in parts if p.isalpha())
        return Shape(example, runs, upper=letters.isupper())
    return None


# One run of a declared pattern: a class of letters or digits and its lengths ("[A-Z]{1,3}",
# "\\d{5,10}", "[0-9]", "[A-Za-z]{2}"), optionally in a group.
_PATTERN_RUN = re.compile(
    r"\(?(?:\[(?P<letters>(?:A-Z|a-z)+)\]|(?P<digits>\\d|\[0-9\]))"
    r"(?:\{(?P<low>\d{1,2})(?:,(?P<high>\d{1,2}))?\})?\)?"
)


def shape_of_pattern(pattern: str, description: str = "") -> Shape | None:
    """The shape of a declared pattern made of runs of letters and digits
    ("^[A-Z]{1,3}[0-9]{5,10}$"); None for a pattern of any other kind, which is then
    left to the API to check. The example is the description's when it fits."""
    body = pattern.strip()
    body = body.removeprefix("^").removesuffix("$")
    runs: list[Run] = []
    upper = True
    position = 0
    while position < len(body):
        m = _PATTERN_RUN.match(body, position)
        if m is None or m.end() == position:
            return None
        low = int(m.group("low") or 1)
        high = int(m.group("high") or low)
        if low < 1 or high < low:
            return None
        letters = m.group("letters") is not None
        if letters and "A-Z" not in m.group("letters"):
            upper = False
        runs.append(Run(letters, high, declared=(low, high)))
        position = m.end()
    if len(runs) < 2 or not any(r.letters for r in runs) or all(r.letters for r in runs):
        return None
    described = shape_of(description)
    shape = Shape(described.example if described else "", tuple(runs), upper)
    if not described or not shape.matches(described.example):
        example = "".join(("ABCDEFGHIJ" if r.letters else "1234567890")[: r.bounds(False)[0]] for r in runs)
        shape = Shape(example if upper else example.lower(), tuple(runs), upper)
    return shape


@dataclass(frozen=True)
class Found:
    value: str
    start: int
    end: int


_WORD = re.compile(r"[0-9A-Za-zА-Яа-яЁё]+")
# Symbols of units a citizen writes after a number ("300 kwh", "20 km", "15 min"); currency
# codes come from ISO 4217 (pycountry).
_UNIT_SYMBOLS = frozenset(
    {"KWH", "MWH", "GWH", "KW", "MW", "KM", "KG", "CM", "MM", "MIN", "SEC", "PCS", "TK"}
)


@functools.cache
def amount_units() -> frozenset[str]:
    """Unit symbols and ISO 4217 currency codes: beside a number they make an amount."""
    return _UNIT_SYMBOLS | frozenset(c.alpha_3 for c in pycountry.currencies)


def _quantity(first: str, second: str) -> bool:
    """A number beside a currency or unit ("500 eur", "EUR 500", "300 kWh") is an amount,
    never an identifier written with a space."""
    number, unit = (first, second) if first.isdigit() else (second, first)
    return number.isdigit() and unit.isalpha() and unit.upper() in amount_units()


def _joins(text: str, words: Sequence[tuple[str, int, int]], i: int) -> bool:
    """Whether word i and the next are one value written apart."""
    if i + 1 >= len(words):
        return False
    word, _, end = words[i]
    following, next_start, _ = words[i + 1]
    # Runs meet across the space ("456 def", "AB 12345", "A1234 567"); two words
    # of letters never do: "nr p98765432", "on P1111111" are a word and the number.
    letters_meet = word[-1:].isalpha() and following[:1].isalpha()
    return next_start - end == 1 and text[end] in " -" and not letters_meet and not _quantity(word, following)


def _capitals(word: str) -> bool:
    return word.isalpha() and word.isupper()


def _other_side_meant(words: Sequence[tuple[str, int, int]], i: int, joins: Sequence[bool]) -> bool:
    """Whether the pair of word i and the next is the wrong reading of a number that
    sits between two words of letters: the side written in capitals is the value
    ("ABC 123 pls" is "ABC 123", never "123 PLS"; "tax 123 ABC" is "123ABC"). A
    value is typed in capitals or not at all, so with both sides alike the pair stands."""
    word, following = words[i][0], words[i + 1][0]
    if word.isdigit() and following.isalpha() and i > 0 and joins[i - 1]:
        return _capitals(words[i - 1][0]) and not _capitals(following)
    if word.isalpha() and following.isdigit() and i + 2 < len(words) and joins[i + 1]:
        return _capitals(words[i + 2][0]) and not _capitals(word)
    return False


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """Every word, and every two words joined by one space or dash where a run of
    letters meets one of digits or digits meet digits ("456 def"), with Cyrillic
    look-alike letters read as Latin."""
    words = [(m.group(0).translate(_LOOK_ALIKES), m.start(), m.end()) for m in _WORD.finditer(text)]
    joins = [_joins(text, words, i) for i in range(len(words))]
    found = []
    for i, (word, start, end) in enumerate(words):
        if joins[i] and not _other_side_meant(words, i, joins):
            following, _, next_end = words[i + 1]
            found.append((word + following, start, next_end))
        found.append((word, start, end))
    return found


def find_identifier(text: str, shape: Shape, taken: Sequence[tuple[int, int]] = ()) -> Found | None:
    return next(iter(find_identifiers(text, shape, taken)), None)


def find_identifiers(text: str, shape: Shape, taken: Sequence[tuple[int, int]] = ()) -> list[Found]:
    """Every identifier of `shape` in `text`, in order, none overlapping another."""
    found: list[Found] = []
    for token, start, end in _tokens(text):
        if (
            token.isascii()
            and shape.matches(token)
            and outside([*taken, *((f.start, f.end) for f in found)], start, end)
        ):
            found.append(Found(shape.normalise(token), start, end))
    return found


_SHORT_WORD = re.compile(r"^[A-Za-z]{2,4}$")
_SPACED_PAIR = re.compile(
    r"(?<![\w-])(?:(?P<letters>[A-Za-zА-Яа-яЁё]{1,3}) \d{2,5}|\d{2,5} (?P<letters2>[A-Za-zА-Яа-яЁё]{1,3}))"
    r"(?![\w-])"
)


# Digits given as the number though the identifier has letters too: after a number sign or
# word ("#12", "nr 12-34", "номер заявления 12", "application no 55": "no" without its dot
# only right after a word, never opening a reply as "no, 5"), or digit groups joined by a
# dash ("12-34").
_NUMBER_MARK = r"(?:#|№|\bnr\b\.?|\bno\.|(?<=[^\W\d_] )no\b(?=\s+\d)|\bnumbe?r\b|\bномер\w*(?:\s+[^\W\d_]+)?)"
_MARKED_DIGITS = re.compile(
    rf"{_NUMBER_MARK}\s*(?:(?:is|on|:)\s*)?(\d{{1,12}}(?:[-/]\d{{1,12}})?)(?![\w/-])", re.I
)
_DASHED_DIGITS = re.compile(r"(?<![\w./-])\d{1,6}(?:-\d{1,6})+(?![\w./-])")
_YEAR = re.compile(r"(?:19|20)\d\d")


def _digits_meant(text: str, shape: Shape, taken: Sequence[tuple[int, int]]) -> str | None:
    """Digits written as the number, when the identifier has letters: "#12", "12-34"."""
    if not any(run.letters for run in shape.runs):
        return None
    # Digits after a number sign or word ("#1900", "taotluse nr 2026") are named as the
    # number, so they are meant so even where they could be read as a year; dashed digits
    # alone may be a year range or a date ("2025-2026", "2026-01-01") and are not.
    spans = [(m.start(1), m.end(1), m.group(1), True) for m in _MARKED_DIGITS.finditer(text)]
    spans += [(m.start(), m.end(), m.group(0), False) for m in _DASHED_DIGITS.finditer(text)]
    for start, end, digits, marked in spans:
        groups = re.split(r"[-/]", digits)
        if not marked and (all(_YEAR.fullmatch(g) for g in groups) or not outside(list(taken), start, end)):
            continue
        if not shape.matches(digits.replace("-", "").replace("/", "")):
            return digits
    return None


def attempted_identifier(
    text: str, shape: Shape, taken: Sequence[tuple[int, int]] = (), *, reply: bool = False
) -> str | None:
    """A token that looks meant as the identifier but has the wrong shape: letters and
    digits mixed ("12AB", "A123"), or — in a reply to the question about it, or written
    in capitals — a short run of letters alone ("XYZ")."""
    for m in _SPACED_PAIR.finditer(text):
        # "AB 1234", "ABC 12": letters and digits written apart, in capitals (or in a
        # reply), in a form the identifier does not have.
        letters = m.group("letters") or m.group("letters2")
        joined = (m.group(0).replace(" ", "")).translate(_LOOK_ALIKES)
        if (
            not outside(list(taken), m.start(), m.end())
            or not joined.isascii()
            or _quantity(*m.group(0).split(" "))
        ):
            continue
        if (letters.isupper() or reply) and not shape.matches(joined):
            return m.group(0)
    for m in re.finditer(r"(?<![\w])[0-9A-Za-zА-Яа-яЁё]{2,}(?![\w])", text):
        token = m.group(0).translate(_LOOK_ALIKES)
        if not outside(list(taken), m.start(), m.end()) or not token.isascii():
            continue
        mixed = any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
        if mixed and not shape.matches(token):
            return m.group(0)
        if (
            _SHORT_WORD.match(token)
            and token.isupper()
            and (reply or len(token) == 3)
            and token not in amount_units()
        ):
            return m.group(0)
    if (meant := _digits_meant(text, shape, taken)) is not None:
        return meant
    if reply:
        stripped = text.strip(" .!?")
        if re.fullmatch(r"\d{1,12}", stripped) and not shape.matches(stripped):
            return stripped
    return None


def describe(shape: Shape, lang: str) -> str:
    """The expected form in words: "3 digits and 3 letters, e.g. 123ABC"."""
    names = {
        "en": ("letter", "letters", "digit", "digits", "and", "e.g."),
        "et": ("täht", "tähte", "number", "numbrit", "ja", "nt"),
        "ru": ("буква", "букв", "цифра", "цифр", "и", "например"),
    }[lang]
    parts = []
    for i, run in enumerate(shape.runs):
        low, high = run.bounds(i == 0)
        count = f"{low}–{high}" if low != high else str(low)
        plural = high != 1
        if run.letters:
            noun = names[1] if plural else names[0]
        else:
            noun = names[3] if plural else names[2]
        if lang == "ru" and plural and count.rsplit("–", 1)[-1] in ("2", "3", "4"):
            noun = "буквы" if run.letters else "цифры"
        parts.append(f"{count} {noun}")
    joined = f" {names[4]} ".join(parts)
    return f"{joined}, {names[5]} {shape.example}"
