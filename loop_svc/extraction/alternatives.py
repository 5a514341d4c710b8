"""Several values of one parameter said side by side, in en/et/ru: "in Finland and Latvia",
"123ABC or 777XYZ", "123ABC, 456ABC and 789XYZ", "Soomes ja Lätis", "в Литве или Латвии".

Values are alternatives only when nothing but a list separator stands between one and the
next (a comma, "and", "or", "vs", "ja", "või", "ning", "и", "или", "либо", "&", "+", "/"):
"Latvia instead of Finland" or "Finland, not Latvia" name one value, and two values far
apart in a sentence are not a list. The loop makes one call per value (loop.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from loop_svc.extraction.text import fold

_JOINER = (
    r"(?:,|;|/|&|\+|and|or|vs\.?|versus|compared\s+(?:to|with)|ja|ning|voi"
    r"|или|либо|и|и\s+ещ[её]|а\s+также)"
)
# What may stand between two listed values: separators, "and also", "or maybe".
_BETWEEN = re.compile(rf"^\s*(?:{_JOINER}\s*){{1,2}}(?:also|ka|ka\s+ehk|maybe|ещ[её])?\s*$", re.I)


def listed(text: str, mentions: Sequence[tuple[str, int, int]], value: str | None) -> list[str]:
    """The distinct values of the run of listed mentions (value, start, end; in order of
    appearance) that holds `value` (any run, for None); [] when `value` is not listed with
    another."""
    folded = fold(text)
    runs: list[list[tuple[str, int, int]]] = []
    for mention in mentions:
        if runs and _BETWEEN.match(folded[runs[-1][-1][2] : mention[1]]):
            runs[-1].append(mention)
        else:
            runs.append([mention])
    for run in runs:
        values = list(dict.fromkeys(v for v, _, _ in run))
        if len(values) >= 2 and (value is None or value in values):
            return values
    return []
