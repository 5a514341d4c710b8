"""Our own multi-turn dialogues on the demo catalogue (tests/data/dialogues_{en,et,ru}.jsonl):
each one must reach exactly the expected call in at most `min_turns` user messages,
through the loop's state machine and rule extraction with a fixed "today".

Format, one dialogue per line: {"id", "language", "today", "endpoint", "messages":
[user messages], "min_turns", "expected": {param: value}}. Routing is given (gold),
as in bench/eval_slots.py."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.loop import Complete, TurnLoop
from loop_svc.schema import EndpointSpec, ParamSpec
from services.language import Lang

DATA = Path(__file__).resolve().parents[1] / "data"
CATALOGUE = Path(__file__).resolve().parents[2] / "devtools" / "demo_apis" / "catalogue.json"


def _catalogue() -> dict[str, EndpointSpec]:
    return {
        e["name"]: EndpointSpec(
            name=e["name"],
            params=[
                ParamSpec(
                    name=p["name"],
                    type=p.get("type") or "string",
                    required=bool(p.get("required")),
                    description=p.get("description", ""),
                    enum=[str(v) for v in p.get("enum") or []],
                )
                for p in e["params"]
            ],
        )
        for e in json.loads(CATALOGUE.read_text())
    }


def _dialogues() -> list[dict]:
    found = []
    for language in ("en", "et", "ru"):
        with (DATA / f"dialogues_{language}.jsonl").open() as lines:
            found += [json.loads(line) for line in lines if line.strip()]
    return found


DIALOGUES = _dialogues()
ENDPOINTS = _catalogue()


def test_thirty_dialogues_per_language() -> None:
    for language in ("en", "et", "ru"):
        assert sum(d["language"] == language for d in DIALOGUES) >= 30


@pytest.mark.parametrize("dialogue", DIALOGUES, ids=[d["id"] for d in DIALOGUES])
def test_dialogue_reaches_the_call(countries: CountryNames, dialogue: dict) -> None:
    today = date.fromisoformat(dialogue["today"])
    loop = TurnLoop(RuleExtractor(countries, today=lambda: today))
    endpoint = ENDPOINTS[dialogue["endpoint"]]
    language: Lang = dialogue["language"]
    session = loop.new_session("chat", [endpoint], language=language, original_query=dialogue["messages"][0])
    for turn, message in enumerate(dialogue["messages"], start=1):
        step = loop.advance(session, message)
        if isinstance(step.result, Complete):
            assert turn <= dialogue["min_turns"]
            (call,) = step.result.calls
            assert call.endpoint.name == dialogue["endpoint"]
            assert call.params == dialogue["expected"]
            return
        assert step.session is not None, f"turn {turn}: {step.result}"
        session = step.session
    pytest.fail(f"no call after {len(dialogue['messages'])} turns; collected {session.collected}")
