"""The disambiguator and decomposer, driven by a scripted LM (dspy DummyLM): the LLM's
choice is used and marked llm_validated, a failure falls back to the deterministic
path, and every call is counted for End.llm_calls."""

from __future__ import annotations

import pytest

from classifier_svc.candidates import ExecutionMode, Workflow
from classifier_svc.llm_steps import DspyEndpointDisambiguator, DspyIntentDecomposer
from services.language import LanguageDetector
from tests.classifier.test_classifier_router import ScriptedSearch, Sessions, cand, make_router

dspy = pytest.importorskip("dspy")

# Two endpoints within the close margin, neither a clear match.
CLOSE = {"holidays": [cand("get_national_holidays", 0.862), cand("get_school_holidays", 0.858, 2)]}


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def failing_lm() -> object:
    """Answers with nothing the signature can parse: every call raises."""
    return dspy.utils.DummyLM([{"unrelated": "garbage"}] * 4)


async def test_disambiguator_choice_is_used_and_counted(detector: LanguageDetector) -> None:
    lm = dspy.utils.DummyLM([{"best_endpoint_id": "id-get_school_holidays"}])
    router = make_router(
        ScriptedSearch(CLOSE), Sessions(), detector, disambiguator=DspyEndpointDisambiguator(lm)
    )
    decision = await router.decide("c1", "When are the holidays?", None)
    assert [c.name for c in decision.endpoints] == ["get_school_holidays"]
    assert decision.llm_validated
    # The validated choice skips the decomposer gate: one call in all.
    assert decision.llm_calls == 1


async def test_disambiguator_failure_keeps_the_best_score(detector: LanguageDetector) -> None:
    lm = failing_lm()
    router = make_router(
        ScriptedSearch(CLOSE), Sessions(), detector, disambiguator=DspyEndpointDisambiguator(lm)
    )
    decision = await router.decide("c1", "When are the holidays?", None)
    assert [c.name for c in decision.endpoints] == ["get_national_holidays"]
    assert not decision.llm_validated
    assert decision.llm_calls == 1


async def test_disambiguator_none_falls_back_to_the_best_score(detector: LanguageDetector) -> None:
    lm = dspy.utils.DummyLM([{"best_endpoint_id": "none"}])
    router = make_router(
        ScriptedSearch(CLOSE), Sessions(), detector, disambiguator=DspyEndpointDisambiguator(lm)
    )
    decision = await router.decide("c1", "When are the holidays?", None)
    assert [c.name for c in decision.endpoints] == ["get_national_holidays"]
    assert not decision.llm_validated


DILUTED = {
    # The whole message sits between two endpoints; each focused part is clear.
    "holidays in estonia and": [
        cand("get_national_holidays", 0.861),
        cand("get_electricity_prices", 0.859, 2),
    ],
    "public holidays in estonia": [
        cand("get_national_holidays", 0.93),
        cand("get_electricity_prices", 0.8, 2),
    ],
    "electricity price": [cand("get_electricity_prices", 0.93), cand("get_national_holidays", 0.8, 2)],
}


async def test_decomposer_splits_a_diluted_message(detector: LanguageDetector) -> None:
    lm = dspy.utils.DummyLM(
        [
            {
                "mode": "parallel",
                "sub_queries": [
                    "What are the public holidays in Estonia?",
                    "What is the electricity price now?",
                ],
            }
        ]
    )
    message = "Public holidays in Estonia and the electricity price now"
    router = make_router(ScriptedSearch(DILUTED), Sessions(), detector, decomposer=DspyIntentDecomposer(lm))
    decision = await router.decide("c1", message, None)
    assert decision.mode is ExecutionMode.PARALLEL
    assert {c.name for c in decision.endpoints} == {"get_national_holidays", "get_electricity_prices"}
    assert decision.llm_calls == 1


async def test_decomposer_failure_falls_back_to_the_conjunction_split(detector: LanguageDetector) -> None:
    lm = failing_lm()
    router = make_router(ScriptedSearch(DILUTED), Sessions(), detector, decomposer=DspyIntentDecomposer(lm))
    decision = await router.decide("c1", "Public holidays in Estonia and the electricity price now", None)
    assert decision.workflow is Workflow.API_TOOL_CALLING
    assert decision.mode is ExecutionMode.PARALLEL
    assert decision.llm_calls == 1


async def test_decomposer_single_mode_keeps_one_endpoint(detector: LanguageDetector) -> None:
    lm = dspy.utils.DummyLM([{"mode": "single", "sub_queries": []}])
    # A medium match (not clear enough to skip the gate) with no close runner-up.
    search = ScriptedSearch({"holidays": [cand("get_national_holidays", 0.853), cand("x", 0.84, 2)]})
    router = make_router(search, Sessions(), detector, decomposer=DspyIntentDecomposer(lm))
    decision = await router.decide("c1", "Which holidays are there", None)
    assert decision.mode is ExecutionMode.SINGLE
    assert [c.name for c in decision.endpoints] == ["get_national_holidays"]
    assert decision.llm_calls == 1
