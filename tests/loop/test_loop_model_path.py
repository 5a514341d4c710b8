"""loop_svc's model steps through litellm against the scripted model server (over HTTP),
and the follow-up rules they fall back to: after a two-part answer a follow-up is about
the routed endpoint's cached call, not the first one; a decision made earlier in the turn
is not made again; a clarifying question by the model is in the citizen's language and
never names a parameter technically; every failure takes the deterministic path; each
call the model receives is counted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from atc.common.v1 import catalogue_pb2
from atc.loop.v1 import loop_pb2
from loop_svc.cache import LastCallContext, ResponseCache
from loop_svc.cache_plan import CachedAnswer, CachePlanner, DecidedFollowUp
from loop_svc.extraction import RuleExtractor
from loop_svc.follow_up import FollowUpKind, RuleFollowUpDetector
from loop_svc.follow_up_llm import FollowUpDetectorModule
from loop_svc.questions import clarifying_question
from loop_svc.questions_llm import DspyQuestionWriter
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.servicer import decided_follow_up
from loop_svc.turns import TurnRequest
from services.language import LanguageDetector
from services.llm import LLMConfig, build_lm, counting_llm_calls
from services.result_sketch import sketch_of
from tests.llm_server import ScriptedModel, dspy_fields

ADDRESS_ROWS = [{"address": "Narva mnt 5, Tallinn", "ehak": "0784"}]
TAX_ROWS = [
    {"taxType": "registration fee", "amount": 120.0},
    {"taxType": "annual vehicle tax", "amount": 85.5},
]
FOLLOW_UP_FIELDS = "[[ ## follow_up_type ## ]]"
QUESTION_FIELD = "[[ ## question ## ]]"


@pytest.fixture()
async def model(tmp_path: Path) -> AsyncIterator[ScriptedModel]:
    async with ScriptedModel() as server:
        yield server


def scripted_lm(model: ScriptedModel, tmp_path: Path):  # type: ignore[no-untyped-def]
    config = LLMConfig(model="openai/scripted", api_base=model.api_base, api_key="test", timeout_seconds=5)
    return build_lm(config, cache_dir=tmp_path / "dspy")


def two_part_contexts(address_search: EndpointSpec, vehicle_tax: EndpointSpec) -> list[LastCallContext]:
    """What a turn answering "my address and my car's tax" leaves: the address call first."""
    return [
        LastCallContext(
            api_name=address_search.name,
            endpoint=address_search,
            collected_params={"address": "Narva mnt 5"},
            result_id="result-address",
            sketch=sketch_of(ADDRESS_ROWS),
            original_query="What is my address and the vehicle tax for 123ABC?",
        ),
        LastCallContext(
            api_name=vehicle_tax.name,
            endpoint=vehicle_tax,
            collected_params={"regNr": "123ABC", "calculationYear": "2026"},
            result_id="result-tax",
            sketch=sketch_of(TAX_ROWS),
            original_query="What is my address and the vehicle tax for 123ABC?",
        ),
    ]


async def test_a_follow_up_routed_to_the_tax_answers_from_the_tax_call(
    redis_client: aioredis.Redis,
    extractor: RuleExtractor,
    address_search: EndpointSpec,
    vehicle_tax: EndpointSpec,
) -> None:
    cache = ResponseCache(redis_client)
    await cache.set_l2("chat-two", two_part_contexts(address_search, vehicle_tax))
    planner = CachePlanner(cache, extractor, RuleFollowUpDetector(extractor))
    message = "Which of those is the highest?"
    plan = await planner.plan(TurnRequest("chat-two", message, [vehicle_tax]), "en")  # type: ignore[arg-type]
    assert isinstance(plan, CachedAnswer) and plan.endpoint.name == vehicle_tax.name
    assert plan.result_id == "result-tax"
    # Asked before routing (DetectFollowUp, all last calls), the words of the message decide.
    follow = await planner.follow_up("chat-two", "", "Which of those vehicle taxes is the highest?", "en")
    assert follow.kind is FollowUpKind.RESPONSE_QUESTION
    assert follow.context is not None and follow.context.api_name == vehicle_tax.name


async def test_the_model_names_the_call_a_follow_up_is_about(
    model: ScriptedModel,
    tmp_path: Path,
    extractor: RuleExtractor,
    address_search: EndpointSpec,
    vehicle_tax: EndpointSpec,
) -> None:
    contexts = two_part_contexts(address_search, vehicle_tax)
    detector = FollowUpDetectorModule(scripted_lm(model, tmp_path), fallback=RuleFollowUpDetector(extractor))
    model.reply(
        when=FOLLOW_UP_FIELDS,
        text=dspy_fields(
            follow_up_type="param_update", about_api=vehicle_tax.name, updated_params='{"regNr": "456DEF"}'
        ),
    )
    with counting_llm_calls() as calls:
        follow = await asyncio.to_thread(detector.detect, "And for 456DEF?", contexts, "en")
    assert follow.kind is FollowUpKind.PARAM_UPDATE
    assert follow.context is not None and follow.context.api_name == vehicle_tax.name
    assert follow.updated_params == {"regNr": "456DEF"}
    assert calls.count == model.calls == 1
    # The prompt described both calls, so the model could tell them apart.
    assert address_search.name in model.received[0].prompt and vehicle_tax.name in model.received[0].prompt


@pytest.mark.parametrize(
    "failure",
    [{"status": 500}, {"status": 429}, {"text": "garbage"}, {"text": dspy_fields(follow_up_type="maybe")}],
    ids=["500", "429", "malformed", "unknown-kind"],
)
async def test_a_failing_follow_up_model_leaves_the_decision_to_the_rules(
    model: ScriptedModel,
    tmp_path: Path,
    extractor: RuleExtractor,
    address_search: EndpointSpec,
    vehicle_tax: EndpointSpec,
    failure: dict,
) -> None:
    contexts = two_part_contexts(address_search, vehicle_tax)
    detector = FollowUpDetectorModule(scripted_lm(model, tmp_path), fallback=RuleFollowUpDetector(extractor))
    model.reply(times=None, **failure)
    with counting_llm_calls() as calls:
        follow = await asyncio.to_thread(
            detector.detect, "Which of those vehicle taxes is the highest?", contexts, "en"
        )
    # As the rules alone decide it.
    assert follow.kind is FollowUpKind.RESPONSE_QUESTION
    assert follow.context is not None and follow.context.api_name == vehicle_tax.name
    assert calls.count == model.calls >= 1


async def test_a_follow_up_decided_before_routing_is_not_decided_again(
    model: ScriptedModel,
    tmp_path: Path,
    redis_client: aioredis.Redis,
    extractor: RuleExtractor,
    address_search: EndpointSpec,
    vehicle_tax: EndpointSpec,
) -> None:
    cache = ResponseCache(redis_client)
    await cache.set_l2("chat-once", two_part_contexts(address_search, vehicle_tax))
    # No reply is scripted: a second decision would reach the model (and show in its calls).
    planner = CachePlanner(cache, extractor, FollowUpDetectorModule(scripted_lm(model, tmp_path)))
    request = loop_pb2.RunTurnRequest(
        follow_up=loop_pb2.DetectFollowUpResponse(
            kind=loop_pb2.FOLLOW_UP_KIND_RESPONSE_QUESTION,
            endpoint=catalogue_pb2.Endpoint(name=address_search.name),
            llm_calls=1,
        )
    )
    decided = decided_follow_up(request)
    assert decided == DecidedFollowUp(FollowUpKind.RESPONSE_QUESTION, address_search.name, {})
    turn = TurnRequest("chat-once", "Which of those is the highest?", [vehicle_tax])  # type: ignore[arg-type]
    with counting_llm_calls() as calls:
        plan = await planner.plan(turn, "en", decided)
    assert isinstance(plan, CachedAnswer) and plan.result_id == "result-tax"
    assert model.calls == calls.count == 0
    assert decided_follow_up(loop_pb2.RunTurnRequest()) is None
    # A changed value the routed endpoint does not have is no update of it.
    update = DecidedFollowUp(FollowUpKind.PARAM_UPDATE, address_search.name, {"address": "Pikk 1"})
    assert (
        update.applied_to(two_part_contexts(address_search, vehicle_tax)[1]).kind is FollowUpKind.NEW_INTENT
    )


PERSONAL_CODE = ParamSpec(
    name="personalCode",
    type="string",
    required=True,
    description="The citizen's personal identification code (11 digits)",
)


@pytest.fixture(scope="module")
def languages() -> LanguageDetector:
    return LanguageDetector()


async def test_the_model_asks_in_the_citizens_language(
    model: ScriptedModel, tmp_path: Path, languages: LanguageDetector
) -> None:
    writer = DspyQuestionWriter(scripted_lm(model, tmp_path), languages)
    asked = "Palun öelge oma isikukood (11 numbrit)."
    model.reply(when=QUESTION_FIELD, text=dspy_fields(question=asked))
    template = clarifying_question([PERSONAL_CODE], "et")
    with counting_llm_calls() as calls:
        question = await writer.write([PERSONAL_CODE], "et", "Kas mul on võlgu?", template)
    assert question == asked
    assert calls.count == model.calls == 1
    prompt = model.received[0].prompt
    # The model saw what the value is and the language, never the technical name.
    assert "personal identification code" in prompt and "Estonian" in prompt
    assert "personalCode" not in prompt


@pytest.mark.parametrize(
    ("reply", "lang"),
    [
        (dspy_fields(question="Palun täpsusta: personal code."), "et"),
        (dspy_fields(question="Укажите personalCode."), "ru"),
        (dspy_fields(question="Please give your personal identification code."), "et"),
        (dspy_fields(question=""), "ru"),
        ("garbage", "et"),
    ],
    ids=["english-words", "technical-name", "other-language", "empty", "malformed"],
)
async def test_a_refused_or_failed_question_is_the_template(
    model: ScriptedModel, tmp_path: Path, languages: LanguageDetector, reply: str, lang: str
) -> None:
    writer = DspyQuestionWriter(scripted_lm(model, tmp_path), languages)
    model.reply(text=reply, times=None)
    template = clarifying_question([PERSONAL_CODE], lang)  # type: ignore[arg-type]
    question = await writer.write([PERSONAL_CODE], lang, "request", template)  # type: ignore[arg-type]
    assert question == template


async def test_an_unreachable_model_asks_the_template(
    model: ScriptedModel, tmp_path: Path, languages: LanguageDetector
) -> None:
    writer = DspyQuestionWriter(scripted_lm(model, tmp_path), languages)
    model.reply(status=500, times=None)
    template = clarifying_question([PERSONAL_CODE], "ru")
    with counting_llm_calls() as calls:
        assert await writer.write([PERSONAL_CODE], "ru", "request", template) == template
    assert calls.count == model.calls == 1
    assert json.loads(json.dumps(template))  # a plain string, whole


def test_localized_descriptions_travel_from_the_catalogue_message_to_the_question() -> None:
    from loop_svc import convert

    message = catalogue_pb2.Endpoint(
        name="check_document_application_status",
        params=[
            catalogue_pb2.EndpointParam(
                name="applicationNumber",
                type="string",
                required=True,
                description="The application number",
                descriptions={"et": "Taotluse number", "ru": "Номер заявления"},
            )
        ],
    )
    spec = convert.endpoint_from_proto(message)
    assert spec.params[0].descriptions == {"et": "Taotluse number", "ru": "Номер заявления"}
    assert clarifying_question(spec.params, "et") == "Palun täpsusta: taotluse number."
    assert dict(convert.endpoint_to_proto(spec).params[0].descriptions)["ru"] == "Номер заявления"


@pytest.mark.parametrize(
    "reply",
    [
        {"text": dspy_fields(extracted_params='{"countryIsoCode": "FI", "injected": "x"}')},
        {"status": 500},
        {"status": 429},
        {"text": "garbage"},
    ],
    ids=["answer", "500", "429", "malformed"],
)
async def test_extraction_by_the_model_fills_only_what_the_rules_left(
    model: ScriptedModel, tmp_path: Path, extractor: RuleExtractor, holidays: EndpointSpec, reply: dict
) -> None:
    from loop_svc.extraction.combined import RulesThenModel
    from loop_svc.extraction.llm import ParamExtractionModule
    from tests.loop.conftest import TODAY

    model.reply(when="extracted_params", times=None, **reply)
    combined = RulesThenModel(extractor, ParamExtractionModule(scripted_lm(model, tmp_path)), lambda: TODAY)
    with counting_llm_calls() as calls:
        values, _ = await asyncio.to_thread(
            combined.extract_with_calls,
            "Holidays in the land of a thousand lakes in 2026",
            holidays.params,
            language="en",
        )
    year = {"validFrom": "2026-01-01", "validTo": "2026-12-31"}
    # The rules read the year; the model (when it answers) the country, nothing else.
    expected = {"countryIsoCode": "FI", **year} if "text" in reply and "FI" in reply["text"] else year
    assert values == expected
    assert calls.count == model.calls >= 1
