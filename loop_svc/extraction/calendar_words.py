"""Month and weekday names as people type them, typos included: "janaury", "spetember",
"novmbris", "фефрале", "декбаре", "pyhapaeval", "wendesday", "субота".

The vocabulary is babel's: every month's and weekday's name in en/et/ru, format and
stand-alone, wide and abbreviated (so Russian has its nominative "декабрь" and genitive
"декабря"), the snowball stem of each in its language ("декабр"), and the Estonian
genitive stem the case endings attach to ("detsembri|s", "pühapäeva|l"). A word is a
month (weekday) when it starts with a near copy of one of those (rapidfuzz's OSA
distance: one edit, a swap of two neighbours counting as one, for names up to 8 letters,
two for longer ones; the first letter as written) followed by nothing or by a case
ending of Estonian or Russian. A word as near to two different names names none.

Names shorter than `MIN_FORM_LETTERS` are left to the exact matching. Bounded: words
shorter than `MIN_LETTERS` or longer than `MAX_LETTERS` are not compared, the
vocabularies are a few hundred short strings, and answers are cached per word.
"""

from __future__ import annotations

import functools
from typing import Any

from babel import Locale
from rapidfuzz.distance import OSA

from loop_svc.extraction.text import ESTONIAN_CASE_ENDINGS, fold, stem
from services.language import Lang

LANGUAGES: tuple[Lang, ...] = ("en", "et", "ru")
# Shorter names ("may", "june", "march", "marts", "марта") are one edit from everyday
# words ("match", "marks", "карта"): they are matched exactly elsewhere, never loosely.
MIN_FORM_LETTERS = 6
# The fewest letters compared: a Latin word of 5 ("mõnda", "some") is one edit from a 6-letter
# name ("monday"); Russian names stem to 5–6 letters ("январ", "феврал") and keep 5.
MIN_LETTERS = 6
MIN_CYRILLIC_LETTERS = 5
MAX_LETTERS = 20
# A name of this many letters or more may be two edits away; shorter ones one.
TWO_EDITS_FROM = 9
# What may follow a month's name or stem: an Estonian case ending on the genitive stem
# ("detsembri|st"), or a Russian noun ending ("феврал|е", "декабр|ём").
_RUSSIAN_ENDINGS = ("а", "я", "е", "ю", "у", "ь", "и", "ом", "ем", "ём", "ой", "ей")
_TAILS: frozenset[str] = frozenset(
    {
        "",
        "i",
        "a",
        *ESTONIAN_CASE_ENDINGS,
        *(stem + e for stem in ("i", "a") for e in ESTONIAN_CASE_ENDINGS),
        *_RUSSIAN_ENDINGS,
    }
)
Vocabulary = tuple[tuple[str, int], ...]


def _forms(names: Any, lang: Lang, forms: dict[str, int], kind: str) -> None:
    """Adds a language's names (babel's months or days), their stems and genitives."""
    for context in ("format", "stand-alone"):
        for width in ("wide", "abbreviated"):
            for number, name in names[context][width].items():
                folded = fold(name.strip(".").replace("ё", "е"))
                genitive = _genitive(folded, lang, kind) if width == "wide" else ()
                for form in (folded, fold(stem(folded, lang)), *genitive):
                    if len(form) >= MIN_FORM_LETTERS and form.isalpha():
                        forms.setdefault(form, int(number))


@functools.cache
def _months() -> Vocabulary:
    """(folded name or stem, month number 1–12), each once."""
    forms: dict[str, int] = {}
    for lang in LANGUAGES:
        _forms(Locale.parse(lang).months, lang, forms, "month")
    return tuple(forms.items())


@functools.cache
def _weekdays() -> Vocabulary:
    """(folded name or stem, weekday 0–6 from Monday), each once."""
    forms: dict[str, int] = {}
    for lang in LANGUAGES:
        _forms(Locale.parse(lang).days, lang, forms, "weekday")
    return tuple(forms.items())


@functools.cache
def abbreviated_months() -> dict[str, int]:
    """babel's abbreviated month names in en/et/ru, folded, without their dot ("okt",
    "dets", "veebr", "сент", "нояб"): the exact forms people write in ranges and dates."""
    out: dict[str, int] = {}
    for lang in LANGUAGES:
        names = Locale.parse(lang).months
        for context in ("format", "stand-alone"):
            for number, name in names[context]["abbreviated"].items():
                folded = fold(name.strip(".").replace("ё", "е"))
                if folded.isalpha():
                    out.setdefault(folded, int(number))
    return out


@functools.cache
def full_month_names() -> frozenset[str]:
    """babel's wide month names in en/et/ru, folded ("mai", "juuni", "март")."""
    return frozenset(
        fold(name.replace("ё", "е"))
        for lang in LANGUAGES
        for context in ("format", "stand-alone")
        for name in Locale.parse(lang).months[context]["wide"].values()
    )


def _genitive(name: str, lang: Lang, kind: str) -> tuple[str, ...]:
    """The Estonian genitive stem the case endings attach to: "jaanuar" → "jaanuari",
    with the -er syncope "detsember" → "detsembri" (snowball keeps the nominative), and
    "pühapäev" → "pühapäeva"."""
    if lang != "et" or name.endswith(("i", "a", "e")):
        return ()
    if kind == "weekday":
        return (name + "a",)
    return (name[:-2] + "ri",) if name.endswith("er") else (name + "i",)


def _limit(form: str) -> int:
    return 2 if len(form) >= TWO_EDITS_FROM else 1


@functools.lru_cache(maxsize=1 << 14)
def typo_month(word: str) -> int | None:
    """The month a misspelt word names (1–12), or None; `word` is one word."""
    return _nearest(word, _months())


@functools.lru_cache(maxsize=1 << 14)
def typo_weekday(word: str) -> int | None:
    """The weekday a misspelt word names (0 Monday – 6 Sunday), or None."""
    return _nearest(word, _weekdays())


def _nearest(word: str, vocabulary: Vocabulary) -> int | None:
    folded = fold(word).replace("ё", "е")
    shortest = MIN_LETTERS if folded.isascii() else MIN_CYRILLIC_LETTERS
    if not (shortest <= len(folded) <= MAX_LETTERS) or not folded.isalpha():
        return None
    best: dict[int, int] = {}
    for form, number in vocabulary:
        if form[0] != folded[0]:
            continue
        limit = _limit(form)
        for cut in range(max(shortest, len(form) - limit), len(form) + limit + 1):
            if cut > len(folded) or folded[cut:] not in _TAILS:
                continue
            distance = OSA.distance(folded[:cut], form, score_cutoff=limit)
            if distance <= limit:
                best[number] = min(distance, best.get(number, distance))
    if not best:
        return None
    nearest = min(best.values())
    found = [n for n, d in best.items() if d == nearest]
    return found[0] if len(found) == 1 else None
