"""ShapeModule with a scripted model (DSPy's DummyLM): its JSON becomes the same types
the rules produce; a malformed or empty answer falls back to the rules."""

from __future__ import annotations

import json
from datetime import date

import dspy

from loop_svc.shapes import RuleShapeReader
from loop_svc.shapes_llm import ShapeModule
from services.answer_shape import Hours, Kind, Order

RULES = RuleShapeReader(lambda: date(2026, 12, 1))


def module(answer: str) -> ShapeModule:
    lm = dspy.utils.DummyLM([{"shape": answer}] * 3)
    return ShapeModule(lm, RULES, lambda: date(2026, 12, 1))


def test_the_models_shape_is_used_when_it_parses() -> None:
    shape = {
        "kind": "ANSWER_KIND_COUNT",
        "filters": [{"hours": {"fromHour": 18, "toHour": 22}}],
        "selection": {"order": "SELECTION_ORDER_LOWEST", "count": 2},
    }
    read = module(json.dumps(shape)).read("kaks odavaimat õhtutundi", "et")
    assert read.kind is Kind.COUNT
    assert read.selection is not None and (read.selection.order, read.selection.count) == (Order.LOWEST, 2)
    assert [f.condition for f in read.filters] == [Hours(18, 22)]


def test_a_broken_or_blind_answer_falls_back_to_the_rules() -> None:
    question = "the 3 cheapest hours tomorrow"
    expected = RULES.read(question, "en")
    assert module("not json at all").read(question, "en") == expected
    assert module("[1, 2]").read(question, "en") == expected
    assert module("{}").read(question, "en") == expected
