"""A price per MWh also said per kWh when the question asks for it ("how many cents per
kWh", "mitu senti kWh eest", "сколько центов за кВт·ч"): people know their bill's unit,
not the exchange's. Each "X €/MWh" of the answer gets "(Y c/kWh)" beside it (1 €/MWh =
0.1 cents per kWh); nothing else changes. Read on the answer's own text, once, linearly."""

from __future__ import annotations

import re

from caller_svc.messages import PER_KWH_UNIT
from services.language import Lang

# The question asks for kilowatt-hours or for cents (of a price).
_ASKS_KWH = re.compile(
    r"(?<![^\W\d_])(?:kwh|kw\s*/\s*h|kw·h|kilowat\w*|kilovat\w*|квт\w*|киловатт\w*|"
    r"cents?|senti\w*|центов|цент\w*|копе\w*)(?![^\W\d_])",
    re.I,
)
# A price per MWh as the formatter writes it (locale decimals: "64.84" or "64,84").
_PER_MWH = re.compile(r"(?<![\d.,])(\d{1,6}(?:[.,]\d{1,4})?)\s?(€|EUR)\s?/\s?(MWh|МВт·ч|МВт\*ч|MW·h)")
_MAX_QUESTION = 2_000


def asks_per_kwh(question: str) -> bool:
    return bool(_ASKS_KWH.search(question[:_MAX_QUESTION]))


def with_per_kwh(text: str, question: str, lang: Lang) -> str:
    """`text` with each price per MWh also given per kWh, when `question` asks for it."""
    if not asks_per_kwh(question):
        return text
    unit = PER_KWH_UNIT[lang]

    def beside(m: re.Match[str]) -> str:
        value = float(m.group(1).replace(",", "."))
        cents = f"{value / 10:.2f}"
        if lang != "en":
            cents = cents.replace(".", ",")
        return f"{m.group(0)} ({cents} {unit})"

    return _PER_MWH.sub(beside, text)
