"""Counts written as words in en/et/ru (folded: lower case, no Latin diacritics), with
their case forms: "three", "kolm"/"kolme", "три"/"трёх"."""

from __future__ import annotations

import re

from services.field_terms import fold

NUMBER_WORDS: dict[str, int] = {}
for _value, _forms in enumerate(
    [
        "one üks uks ühe uhe один одна одно одного одну",
        "two kaks kahe kahte два две двух двое пару",
        "three kolm kolme три трех трое",
        "four neli nelja четыре четырех четверо",
        "five viis viie viit пять пяти пятеро",
        "six kuus kuue kuut шесть шести",
        "seven seitse seitsme seitset семь семи",
        "eight kaheksa kaheksat восемь восьми",
        "nine üheksa uheksa üheksat uheksat девять девяти",
        "ten kümme kumme kümmet kummet десять десяти",
    ],
    start=1,
):
    for _form in _forms.split():
        NUMBER_WORDS[fold(_form)] = _value
# The texts these are matched in keep "ё" (loop_svc.extraction.text.fold): both spellings.
NUMBER_WORDS.update({"twelve": 12, "twenty": 20, "dozen": 12, "couple": 2, "трёх": 3, "четырёх": 4})

# One number word, longest first (an alternation, no quantifier over it).
NUMBER_WORD = "(?:" + "|".join(sorted(map(re.escape, NUMBER_WORDS), key=len, reverse=True)) + ")"


def number_value(word: str) -> int | None:
    """A count written in digits or as a number word; None for anything else."""
    if word.isdigit():
        return int(word)
    return NUMBER_WORDS.get(fold(word))
