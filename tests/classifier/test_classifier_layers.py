"""The layer chain SERVICE → API_TOOL_CALLING → CONTEXT → RAG → OOD: each layer's
fall-through and every flag, over scripted catalogue and knowledge searches."""

from __future__ import annotations

from dataclasses import replace

import pytest

from classifier_svc.candidates import ActiveSession, PriorMessage, Reason, Workflow
from classifier_svc.messages import GREETING, SEARCH_UNAVAILABLE
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.service_gate import Thresholds
from services.language import LanguageDetector
from tests.classifier.layer_support import DownSearch, Scripted, Sessions, cand, matcher, passage

SERVICE_THRESHOLDS = Thresholds(minimum=0.77, high=0.82, gap=0.0, min_term_coverage=0.75, dense_only=0.9)
POLICY = RouterPolicy(search_limit=5, service_thresholds=SERVICE_THRESHOLDS)

SERVICES = {"status of my id card application": [cand("check_document_application_status", 0.9)]}
ENDPOINTS = {
    "public holidays": [cand("get_national_holidays", 0.9)],
    "status of my id card application": [cand("get_national_holidays", 0.85)],
}
KNOWLEDGE = {
    "renew my id card": [passage("id-card.en", 0.93, text="Renew the ID card in the self-service portal.")],
    "status of my id card application": [passage("id-card.en", 0.86)],
    "public holidays": [passage("holidays.en", 0.85)],
    "tere": [passage("greetings.et", 0.9, lang="et")],
    "world cup": [passage("id-card.en", 0.81, matched=0, of=3)],
}


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def router(detector: LanguageDetector, policy: RouterPolicy = POLICY, **kw: object) -> Router:
    return Router(
        matcher(Scripted(ENDPOINTS)),
        kw.pop("sessions", Sessions()),  # type: ignore[arg-type]
        detector,
        policy,
        services=Scripted(SERVICES),
        knowledge=Scripted(KNOWLEDGE),
        **kw,  # type: ignore[arg-type]
    )


def test_the_chain_in_its_order_and_each_flag_removes_its_layer(detector: LanguageDetector) -> None:
    # CONTEXT (whole-message rules, no search) runs before the catalogue's layers.
    everything = [Workflow.CONTEXT, Workflow.SERVICE, Workflow.API_TOOL_CALLING, Workflow.RAG, Workflow.OOD]
    assert router(detector).layers == everything
    assert Workflow.SERVICE not in router(detector, replace(POLICY, service_enabled=False)).layers
    assert Workflow.API_TOOL_CALLING not in router(detector, replace(POLICY, api_tool_enabled=False)).layers
    assert Workflow.CONTEXT not in router(detector, replace(POLICY, context_enabled=False)).layers
    assert router(detector, replace(POLICY, tool_classifier_enabled=False)).layers == [
        Workflow.RAG,
        Workflow.OOD,
    ]


async def test_service_first_then_api_tool_when_services_are_off(detector: LanguageDetector) -> None:
    message = "What is the status of my ID card application?"
    decision = await router(detector).decide("c1", message, None)
    assert decision.workflow is Workflow.SERVICE
    assert [c.name for c in decision.endpoints] == ["check_document_application_status"]
    off = await router(detector, replace(POLICY, service_enabled=False)).decide("c1", message, None)
    assert off.workflow is Workflow.API_TOOL_CALLING


async def test_a_service_far_behind_the_knowledge_base_is_not_taken(detector: LanguageDetector) -> None:
    # The service is eligible on its own, but the knowledge passage is much closer.
    search = Scripted(
        {"renew my id card": [cand("check_document_application_status", 0.86, matched=2, of=2)]}
    )
    routed = Router(
        matcher(Scripted()), Sessions(), detector, POLICY, services=search, knowledge=Scripted(KNOWLEDGE)
    )
    decision = await routed.decide("c1", "How do I renew my ID card?", None)
    assert decision.workflow is Workflow.RAG
    assert decision.passages[0].document_id == "id-card.en#0"
    assert decision.query == "How do I renew my ID card?"


async def test_api_tool_layer_and_its_flag(detector: LanguageDetector) -> None:
    message = "What are the public holidays in Estonia?"
    assert (await router(detector).decide("c1", message, None)).workflow is Workflow.API_TOOL_CALLING
    # Without the API layer the knowledge base answers.
    off = await router(detector, replace(POLICY, api_tool_enabled=False)).decide("c1", message, None)
    assert off.workflow is Workflow.RAG


async def test_context_layer_and_its_flag(detector: LanguageDetector) -> None:
    greeting = await router(detector).decide("c1", "Tere!", None)
    assert greeting.workflow is Workflow.CONTEXT and greeting.reply.startswith("Tere!")
    off = await router(detector, replace(POLICY, context_enabled=False)).decide("c1", "Tere!", None)
    assert off.workflow is Workflow.RAG  # the next layer gets it


async def test_nothing_relevant_in_the_knowledge_base_is_out_of_domain(detector: LanguageDetector) -> None:
    decision = await router(detector).decide("c1", "Who won the 2018 world cup?", None)
    assert decision.workflow is Workflow.OOD and decision.reason is Reason.NO_MATCH
    estonian = await router(detector).decide("c1", "Kes võitis jalgpalli maailmameistrivõistlused?", None)
    assert estonian.workflow is Workflow.OOD and estonian.reply.startswith("Vabandust")


async def test_tool_classifier_off_is_rag_only(detector: LanguageDetector) -> None:
    policy = replace(POLICY, tool_classifier_enabled=False)
    sessions = Sessions({"c1": ActiveSession("c1", ("get_national_holidays",), "en")})
    decision = await router(detector, policy, sessions=sessions).decide(
        "c1", "What are the public holidays?", None
    )
    assert decision.workflow is Workflow.RAG  # no session resume, no API layer


async def test_a_classifier_error_falls_back_to_rag_unless_disabled(detector: LanguageDetector) -> None:
    message = "How do I renew my ID card?"
    decision = await router(detector, sessions=Sessions(fail=True)).decide("c1", message, None)
    assert decision.workflow is Workflow.RAG and "classifier error (RuntimeError)" in decision.reasoning
    strict = replace(POLICY, fallback_to_rag_on_error=False)
    with pytest.raises(RuntimeError):
        await router(detector, strict, sessions=Sessions(fail=True)).decide("c1", message, None)


async def test_with_the_search_down_small_talk_works_sessions_go_on_and_the_rest_hear_why(
    detector: LanguageDetector,
) -> None:
    down = DownSearch()
    sessions = Sessions({"c2": ActiveSession("c2", ("get_national_holidays",), "ru")})
    routed = Router(matcher(down), sessions, detector, POLICY, services=down, knowledge=down)
    question = await routed.decide("c1", "Millised on Eesti riigipühad?", None)
    assert (question.workflow, question.reply) == (Workflow.OOD, SEARCH_UNAVAILABLE["et"])
    assert "knowledge search failed too (ConnectionError)" in question.reasoning
    hello = await routed.decide("c1", "Hello!", None)
    assert (hello.workflow, hello.reply) == (Workflow.CONTEXT, GREETING["en"])
    # A chat under way asks for no switch check it cannot make: it resumes.
    searched = len(down.queries)
    resumed = await routed.decide("c2", "А для Латвии на следующую неделю?", None)
    assert (resumed.workflow, resumed.reason) == (Workflow.API_TOOL_CALLING, Reason.SESSION_RESUME)
    assert len(down.queries) == searched + 1, "the switch check was tried"


async def test_a_service_session_resumes_as_the_service_workflow(detector: LanguageDetector) -> None:
    sessions = Sessions(
        {"c1": ActiveSession("c1", ("check_document_application_status",), "en", is_service=True)}
    )
    decision = await router(detector, sessions=sessions).decide("c1", "A1234567", None)
    assert decision.workflow is Workflow.SERVICE and decision.reason is Reason.SESSION_RESUME


async def test_questions_about_the_conversation_are_answered_from_history(detector: LanguageDetector) -> None:
    history = [
        PriorMessage("user", "How do I renew my ID card?"),
        PriorMessage("assistant", "Renew it in the self-service portal."),
        PriorMessage("user", "Kuidas registreerida elukoht?"),
        PriorMessage("assistant", "Esitage elukohateade eesti.ee kaudu."),
    ]
    summary = await router(detector).decide("c1", "What did we talk about?", None, history=history)
    assert summary.workflow is Workflow.CONTEXT
    assert summary.reply.splitlines() == [
        "Here is what we discussed:",
        "- You asked: “How do I renew my ID card?”",
        "  I answered: “Renew it in the self-service portal.”",
        "- You asked: “Kuidas registreerida elukoht?”",
        "  I answered: “Esitage elukohateade eesti.ee kaudu.”",
    ]
    last = await router(detector).decide("c1", "Mida ma viimati küsisin?", None, history=history)
    assert last.reply == "Teie viimane küsimus oli: „Kuidas registreerida elukoht?“"
    answer = await router(detector).decide("c1", "Что вы ответили?", None, history=history)
    assert answer.reply == "Мой последний ответ был: «Esitage elukohateade eesti.ee kaudu.»"
    empty = await router(detector).decide("c1", "What did we discuss?", None)
    assert empty.reply.startswith("You haven't asked me anything yet")


async def test_multi_intent_flag(detector: LanguageDetector) -> None:
    endpoints = Scripted(
        {
            "address": [cand("search_address", 0.86)],
            "vehicle tax": [cand("get_vehicle_tax_info", 0.86)],
        }
    )
    message = "Find the address Viru 4 and calculate the vehicle tax"
    on = Router(matcher(endpoints), Sessions(), detector, POLICY)
    assert [c.name for c in (await on.decide("c1", message, None)).endpoints] == [
        "search_address",
        "get_vehicle_tax_info",
    ]
    off = Router(matcher(endpoints, multi_intent=False), Sessions(), detector, POLICY)
    assert len((await off.decide("c1", message, None)).endpoints) == 1


async def test_an_endpoint_far_behind_the_knowledge_base_is_not_taken(detector: LanguageDetector) -> None:
    endpoints = Scripted(
        {
            "register my place of residence": [cand("search_address", 0.86, matched=0)],
            "public holidays": [cand("get_national_holidays", 0.9)],
        }
    )
    knowledge = Scripted(
        {
            "register my place of residence": [passage("residence.en", 0.93)],
            # Closer than the endpoint, but no more of the question's words: still the API's.
            "public holidays": [passage("holidays.en", 0.95)],
        }
    )
    routed = Router(matcher(endpoints), Sessions(), detector, POLICY, knowledge=knowledge)
    residence = await routed.decide("c1", "How do I register my place of residence?", None)
    assert residence.workflow is Workflow.RAG
    holidays = await routed.decide("c2", "Which public holidays are there?", None)
    assert holidays.workflow is Workflow.API_TOOL_CALLING
    assert [c.name for c in holidays.endpoints] == ["get_national_holidays"]


@pytest.mark.parametrize(
    ("earlier", "lang"),
    [
        ("Millised riigipühad on Soomes?", "et"),
        ("kakie prazdniki v finlyandii", "ru"),
        ("Какие праздники в Финляндии?", "ru"),
        ("Which holidays does Finland have?", "en"),
    ],
)
@pytest.mark.parametrize("reply", ["2027", "123ABC", "ok", "Viru 4"])
async def test_a_reply_with_no_language_of_its_own_is_answered_in_the_chats(
    detector: LanguageDetector, earlier: str, lang: str, reply: str
) -> None:
    # No session under way (the chat's language is not stored): the citizen's earlier
    # messages tell it, never the default English.
    history = [PriorMessage("user", earlier), PriorMessage("assistant", "…")]
    decision = await router(detector).decide("c1", reply, None, history=history)
    assert decision.language == lang
