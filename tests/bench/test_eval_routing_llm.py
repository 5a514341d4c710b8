"""`bench/eval_routing.py --llm` against an OpenAI-compatible endpoint (the scripted model
server, in a thread of its own: the bench runs its own event loop): the router's model
steps run, and the JSON line reports the model calls per case, which equal the requests
the endpoint received."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import eval_routing
from tests.llm_server import ScriptedModel, dspy_fields
from tests.support import serve_asgi_in_thread

ROOT = Path(__file__).resolve().parents[2]


def test_eval_routing_with_a_model_counts_its_calls(capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedModel()
    # The disambiguator leaves the choice to the scores; the decomposer sees one intent.
    model.reply(when="best_endpoint_id", text=dspy_fields(best_endpoint_id="none"), times=None)
    model.reply(when="sub_queries", text=dspy_fields(mode="single", sub_queries="[]"), times=None)
    with serve_asgi_in_thread(model.app()) as url:
        eval_routing.main(
            [
                "--catalog", str(ROOT / "devtools/demo_apis"),
                "--cases", str(ROOT / "tests/data/routing_cases_en.jsonl"),
                "--limit", "30",
                "--json",
                "--llm", "openai/scripted",
                "--llm-api-base", f"{url}/v1",
                "--llm-api-key", "test",
            ]
        )  # fmt: skip
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["cases"] == 30 and summary["llm_model"] == "openai/scripted"
    assert model.calls > 0, "no model step ran"
    assert summary["llm_calls_per_case"] == round(model.calls / 30, 4)
    assert summary["in_scope_accuracy"] is not None
