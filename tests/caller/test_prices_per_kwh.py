"""A price per MWh is also said per kWh when the question asks for kilowatt-hours or cents
(en/et/ru), with the language's decimal sign; an answer to any other question is left as it
is, and "how many cents" is a price in a unit, no count of rows. The scan is linear."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caller_svc.units import asks_per_kwh, with_per_kwh
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Kind

ASKING = {
    "en": ["how many cents per kwh is it now", "price in cents please", "what is that per kWh", "in c/kWh?"],
    "et": ["mitu senti kWh eest see on", "palju see sentides on", "mis on hind kilovatt-tunni kohta"],
    "ru": ["сколько центов за кВт·ч", "а в копейках?", "сколько это за киловатт-час"],
}
UNIT = {"en": "€/MWh", "et": "€/MWh", "ru": "€/МВт·ч"}


@pytest.mark.parametrize(("lang", "question"), [(lang, q) for lang, qs in ASKING.items() for q in qs])
@settings(deadline=None)  # a loaded machine: timing is no property of the rule
@given(st.integers(min_value=0, max_value=999_999))
def test_each_price_per_mwh_gets_its_price_per_kwh(lang: str, question: str, hundredths: int) -> None:
    value = hundredths / 100
    written = f"{value:.2f}" if lang == "en" else f"{value:.2f}".replace(".", ",")
    text = f"• 10:00–11:00 — {written} {UNIT[lang]}\n• 11:00–12:00 — {written} {UNIT[lang]}"
    out = with_per_kwh(text, question, lang)  # type: ignore[arg-type]
    cents = f"{value / 10:.2f}"
    cents = cents if lang == "en" else cents.replace(".", ",")
    assert out.count(f"({cents} ") == 2, out
    assert out.startswith(text.split("\n")[0]) or out.split("\n")[0].startswith(text.split("\n")[0])


@pytest.mark.parametrize(
    "question",
    ["electricity prices tomorrow", "mis elekter homme maksab", "цены на завтра", "I sent my plate"],
)
def test_other_questions_are_left_as_they_are(question: str) -> None:
    text = "• 10:00–11:00 — 64.84 €/MWh"
    assert with_per_kwh(text, question, "en") == text


@pytest.mark.parametrize(
    ("lang", "question"),
    [
        ("en", "how many cents per kwh right now"),
        ("et", "mitu senti praegu kWh maksab"),
        ("ru", "сколько центов сейчас"),
    ],
)
def test_how_many_cents_is_no_count(lang: str, question: str) -> None:
    from datetime import date, datetime

    shape = RuleShapeReader(lambda: date(2027, 11, 4), lambda: datetime(2027, 11, 4, 10)).read(question, lang)  # type: ignore[arg-type]
    assert shape.kind is not Kind.AGGREGATE, shape


def test_the_scan_is_linear() -> None:
    started = time.perf_counter()
    with_per_kwh("1,1 € / MWh " * 8_000 + "9" * 50_000, "cents " * 1_000, "et")
    asks_per_kwh("kw / " * 20_000)
    assert time.perf_counter() - started < 3
