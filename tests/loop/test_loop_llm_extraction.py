"""ParamExtractionModule through DSPy's DummyLM (scripted answers): only for what the
rules leave open, validated against the schema, counted into llm_calls."""

from __future__ import annotations

import json
from datetime import date

from services.llm import prepare_llm_environment

prepare_llm_environment()  # before dspy is imported: no price-map fetch, cache in .atc/

from dspy.utils import DummyLM  # noqa: E402

from loop_svc.cache import LastCallContext  # noqa: E402
from loop_svc.extraction import RuleExtractor  # noqa: E402
from loop_svc.extraction.combined import RulesThenModel  # noqa: E402
from loop_svc.extraction.llm import ParamExtractionModule, validated  # noqa: E402
from loop_svc.follow_up import FollowUpKind  # noqa: E402
from loop_svc.follow_up_llm import FollowUpDetectorModule  # noqa: E402
from loop_svc.loop import Complete, NeedsInput, TurnLoop  # noqa: E402
from loop_svc.schema import EndpointSpec  # noqa: E402

TODAY = date(2026, 3, 10)


def _answer(values: dict[str, object]) -> list[dict[str, str]]:
    return [{"extracted_params": json.dumps(values)}]


def test_model_output_is_checked_against_the_schema(holidays: EndpointSpec) -> None:
    raw = {
        "countryIsoCode": "fi",
        "validFrom": "2026-02-30",
        "validTo": "2026-12-31",
        "admin": "true",
        "languageIsoCode": ["ET"],
    }
    assert validated(json.dumps(raw), holidays.params) == {"countryIsoCode": "FI", "validTo": "2026-12-31"}
    assert validated("not json", holidays.params) == {}
    assert validated("[1, 2]", holidays.params) == {}


def test_the_model_fills_only_what_the_rules_could_not(
    extractor: RuleExtractor, holidays: EndpointSpec
) -> None:
    lm = DummyLM(_answer({"countryIsoCode": "FI", "validFrom": "2025-01-01", "injected": "x"}))
    combined = RulesThenModel(extractor, ParamExtractionModule(lm), lambda: TODAY)
    values, calls = combined.extract_with_calls(
        "Holidays in the land of a thousand lakes in 2026",
        holidays.params,
        language="en",
        history="user: hi",
    )
    # The rules read the year; the model adds the country but cannot override the dates.
    assert values == {"countryIsoCode": "FI", "validFrom": "2026-01-01", "validTo": "2026-12-31"}
    assert calls == 1


def test_no_model_call_when_the_rules_filled_everything(
    extractor: RuleExtractor, holidays: EndpointSpec
) -> None:
    lm = DummyLM(_answer({"countryIsoCode": "LV"}))
    combined = RulesThenModel(extractor, ParamExtractionModule(lm), lambda: TODAY)
    values, calls = combined.extract_with_calls("Holidays in Estonia in 2026", holidays.params, language="en")
    assert values["countryIsoCode"] == "EE" and calls == 0


def test_llm_calls_reach_the_step_and_a_failing_model_is_survived(
    extractor: RuleExtractor, holidays: EndpointSpec
) -> None:
    lm = DummyLM([*_answer({"countryIsoCode": "FI"}), {"wrong_field": "x"}])
    loop = TurnLoop(RulesThenModel(extractor, ParamExtractionModule(lm), lambda: TODAY))
    session = loop.new_session("c", [holidays], language="et", original_query="Suomi pühad 2026")
    step = loop.advance(session, "Suomi pühad 2026")
    assert isinstance(step.result, Complete) and step.llm_calls == 1
    assert step.result.calls[0].params["countryIsoCode"] == "FI"

    session = loop.new_session("c", [holidays], language="en", original_query="holidays?")
    step = loop.advance(session, "holidays over there in 2026")  # the scripted answer has no such field
    assert isinstance(step.result, NeedsInput) and step.llm_calls == 1
    assert step.result.missing == ["countryIsoCode"]


def _context(holidays: EndpointSpec) -> LastCallContext:
    return LastCallContext(
        api_name=holidays.name,
        endpoint=holidays,
        collected_params={"countryIsoCode": "EE", "validFrom": "2026-01-01", "validTo": "2026-12-31"},
        original_query="Holidays in Estonia in 2026",
    )


def test_follow_up_module_checks_its_params_and_fails_open(holidays: EndpointSpec) -> None:
    context = _context(holidays)
    update = FollowUpDetectorModule(
        DummyLM(
            [
                {
                    "follow_up_type": "param_update",
                    "about_api": holidays.name,
                    "updated_params": '{"countryIsoCode": "lv", "x": 1}',
                }
            ]
        )
    ).detect("And Latvia?", [context], "en")
    assert update.kind is FollowUpKind.PARAM_UPDATE and update.updated_params == {"countryIsoCode": "LV"}

    question = FollowUpDetectorModule(
        DummyLM([{"follow_up_type": "response_question", "about_api": "", "updated_params": "{}"}])
    ).detect("Which of those is in May?", [context], "en")
    assert question.kind is FollowUpKind.RESPONSE_QUESTION and question.context is context

    broken = FollowUpDetectorModule(
        DummyLM([{"follow_up_type": "maybe", "about_api": "", "updated_params": "{}"}])
    )
    assert broken.detect("What?", [context], "en").kind is FollowUpKind.NEW_INTENT
