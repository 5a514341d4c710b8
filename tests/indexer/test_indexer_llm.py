"""The LLM adapter and the enrichment step's DSPy path (DummyLM: scripted answers)."""

from __future__ import annotations

from typing import Any

from services.llm import LLMConfig, build_lm, llm_call_counter, prepare_llm_environment
from services.runtime.telemetry import Telemetry
from tests.support import metric_value

prepare_llm_environment()  # before dspy is imported: no price-map fetch, cache in .atc/

from dspy.utils import DummyLM  # noqa: E402

from indexer_svc.enrichment import EndpointEnricher  # noqa: E402
from indexer_svc.validation import parse_endpoint  # noqa: E402


def test_no_model_means_no_lm() -> None:
    assert build_lm(LLMConfig()) is None
    assert build_lm(LLMConfig(model="")) is None


def test_lm_carries_the_configured_endpoint() -> None:
    lm = build_lm(
        LLMConfig(model="openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1", api_key="k", max_tokens=300)
    )
    assert lm is not None
    assert lm.model == "openai/gpt-4o-mini"
    assert lm.kwargs["api_base"] == "http://127.0.0.1:9/v1"
    assert lm.kwargs["max_tokens"] == 300


async def test_enrichment_uses_the_lm_unless_skipped(seed_body: dict[str, Any]) -> None:
    endpoint = parse_endpoint(seed_body)
    enricher = EndpointEnricher(DummyLM([{"search_context": "Riigipühad ja puhkepäevad; public holidays."}]))
    assert enricher.uses_llm
    assert await enricher.enrich_endpoint(endpoint) == "Riigipühad ja puhkepäevad; public holidays."
    skipped = await enricher.enrich_endpoint(endpoint, use_llm=False)
    assert skipped == "national holidays; by country iso code, language iso code, valid from, valid to"


async def test_every_lm_call_of_a_step_is_counted(seed_body: dict[str, Any]) -> None:
    telemetry = Telemetry("indexer")
    lm = DummyLM([{"search_context": "Riigipühad; public holidays."}] * 2)
    lm.callbacks = [llm_call_counter(telemetry)]  # what build_lm attaches with a telemetry
    enricher = EndpointEnricher(lm)
    await enricher.enrich_endpoint(parse_endpoint(seed_body))
    await enricher.enrich_endpoint(parse_endpoint({**seed_body, "description": "Other text."}))
    assert metric_value(telemetry, "atc_llm_calls_total", {"service": "indexer", "outcome": "ok"}) == 2
    configured = build_lm(LLMConfig(model="openai/gpt-4o-mini"), telemetry=telemetry)
    assert configured is not None and len(configured.callbacks) == 1
