"""Small talk and questions about the chat go to the catalogue when the catalogue itself
takes them: an endpoint registered for conversation (its own examples are small talk or
questions about the chat) or a clear match. A catalogue without such endpoints keeps the
CONTEXT layer's friendly answers, in every class of small talk and every language.

Scripted searches (every message of the generated small-talk grammar gets the same
candidates), and the real indexer over a small catalogue with conversational endpoints."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from types import SimpleNamespace

import pytest
import pytest_asyncio

from classifier_svc.api_tool import converses
from classifier_svc.calibration import load_profile
from classifier_svc.candidates import ActiveSession, Candidate, PriorMessage, Reason, Workflow
from classifier_svc.router import Router, RouterPolicy
from devtools.routing_harness import build_router, indexed_catalogue
from services.language import LanguageDetector
from tests.classifier.layer_support import DownSearch, Scripted, Sessions, cand, matcher
from tests.classifier.test_small_talk_classes import APPRAISALS, GENERATED, HISTORY_QUESTIONS, THANKS

SMALL_TALK = [message for _, _, message in GENERATED] + [
    f"{thanks}{appraisal}" for lang in THANKS for thanks in THANKS[lang] for appraisal in APPRAISALS[lang]
]
ABOUT_THE_CHAT = [message for message, _, _ in HISTORY_QUESTIONS]


def with_examples(candidate: Candidate, *examples: str, description: str = "") -> Candidate:
    endpoint = SimpleNamespace(
        name=candidate.name, examples=list(examples), description=description, answer_titles={}, params=[]
    )
    return replace(candidate, endpoint=endpoint)


THANK_YOU = with_examples(cand("thank_you", 0.83, matched=0, of=2), "i appreciate that", "thanks a lot!")
REPEAT = with_examples(
    cand("repeat", 0.83, matched=0, of=2), "could you say that again", "repeat what you said"
)
ADDRESS = with_examples(
    cand("search_address", 0.83, matched=0, of=2), "where is viru 4", "find the address of the town hall"
)


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def build(detector: LanguageDetector, found: list[Candidate], sessions: Sessions | None = None) -> Router:
    return Router(matcher(Scripted({"": found})), sessions or Sessions(), detector, RouterPolicy())


def test_an_endpoint_is_conversational_by_its_own_examples() -> None:
    assert converses(THANK_YOU.endpoint) and converses(REPEAT.endpoint)
    assert not converses(ADDRESS.endpoint)
    assert not converses(SimpleNamespace(examples=[], description="Search the address register."))


@pytest.mark.parametrize("message", SMALL_TALK + ABOUT_THE_CHAT)
async def test_a_catalogue_with_a_conversation_endpoint_takes_it(
    detector: LanguageDetector, message: str
) -> None:
    decision = await build(detector, [THANK_YOU, cand("other", 0.79)]).decide("c1", message, None)
    assert decision.workflow is Workflow.API_TOOL_CALLING, (message, decision.reasoning)
    assert [c.name for c in decision.endpoints] == ["thank_you"]
    assert "registered for conversation" in decision.reasoning


@pytest.mark.parametrize("message", SMALL_TALK + ABOUT_THE_CHAT)
async def test_without_one_the_friendly_answer_stands(detector: LanguageDetector, message: str) -> None:
    # The address search is accepted (a weak lead, no shared word): still small talk.
    decision = await build(detector, [ADDRESS, cand("other", 0.79)]).decide("c1", message, None)
    assert decision.workflow is Workflow.CONTEXT and decision.reply, (message, decision.reasoning)
    assert not decision.endpoints


async def test_a_clear_match_that_shares_a_word_takes_it_too(detector: LanguageDetector) -> None:
    # "what is your age again" reads as a question about the last answer, but the
    # catalogue has an endpoint that clearly takes it.
    age = with_examples(cand("how_old_are_you", 0.9, matched=2, of=2), "how old are you", "what is your age")
    decision = await build(detector, [age, cand("other", 0.79)]).decide("c1", "what is your age again", None)
    assert [c.name for c in decision.endpoints] == ["how_old_are_you"]
    assert "a clear match" in decision.reasoning
    # The same lead without a shared word is no clear match.
    wordless = replace(age, matched_terms=0)
    decision = await build(detector, [wordless, cand("other", 0.79)]).decide(
        "c1", "what is your age again", None
    )
    assert decision.workflow is Workflow.CONTEXT


async def test_a_rejected_conversation_endpoint_does_not_take_it(detector: LanguageDetector) -> None:
    below = replace(THANK_YOU, dense_cosine=0.7, description_cosine=0.7)
    decision = await build(detector, [below]).decide("c1", "thanks!", None)
    assert decision.workflow is Workflow.CONTEXT


async def test_a_session_under_way_gives_way(detector: LanguageDetector) -> None:
    sessions = Sessions({"c1": ActiveSession("c1", ("search_address",), "en")})
    decision = await build(detector, [THANK_YOU], sessions).decide("c1", "thank you so much", None)
    assert decision.reason is Reason.INTENT_SWITCH and decision.endpoints[0].name == "thank_you"
    assert sessions.sessions == {}
    # A dry run reports the switch and leaves the session.
    sessions = Sessions({"c1": ActiveSession("c1", ("search_address",), "en")})
    await build(detector, [THANK_YOU], sessions).decide("c1", "thank you so much", None, dry_run=True)
    assert "c1" in sessions.sessions


async def test_a_failing_search_keeps_the_friendly_answer(detector: LanguageDetector) -> None:
    router = Router(matcher(DownSearch()), Sessions(), detector, RouterPolicy())
    decision = await router.decide("c1", "aitäh, väga abiks!", None)
    assert decision.workflow is Workflow.CONTEXT and decision.language == "et"


# The real indexer: a catalogue that registers conversation next to ordinary endpoints.
CATALOGUE = [
    {
        "endpointId": str(uuid.uuid5(uuid.NAMESPACE_URL, name)),
        "name": name,
        "description": description,
        "method": "GET",
        "url": f"https://api.example.test/assistant/{name}",
        "params": [],
        "examples": examples,
    }
    for name, description, examples in [
        (
            "thank_you",
            "Handle requests about: thank you",
            ["i appreciate that", "thanks for letting me know", "your answer pleased me", "much obliged"],
        ),
        (
            "repeat",
            "Handle requests about: repeat",
            ["repeat what you just said", "say that again please", "will you repeat that", "come again?"],
        ),
        (
            "goodbye",
            "Handle requests about: goodbye",
            ["goodbye!", "see you later", "i have to go now, bye", "talk to you later"],
        ),
        (
            "bank_balance",
            "Handle requests about: balance",
            [
                "what is my bank balance",
                "how much money is in my checking account",
                "show my savings balance",
            ],
        ),
        (
            "weather",
            "Handle requests about: weather",
            ["what is the weather like today", "will it rain tomorrow", "how hot is it outside"],
        ),
    ]
]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def assistant() -> AsyncIterator[Router]:
    async with indexed_catalogue(CATALOGUE) as search:
        yield build_router(search, load_profile())


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("thanks for your help", "thank_you"),
        ("thank you so much for the help", "thank_you"),
        ("can you repeat that please", "repeat"),
        ("please repeat what you said", "repeat"),
        ("bye, see you", "goodbye"),
        ("what is my bank balance", "bank_balance"),
    ],
)
async def test_a_real_catalogue_with_conversation_endpoints(
    assistant: Router, message: str, expected: str
) -> None:
    decision = await assistant.decide("c1", message, None)
    assert [c.name for c in decision.endpoints] == [expected], decision.reasoning


@pytest.mark.parametrize(
    "message",
    [
        "what plate did i give you?",
        "mis numbri ma sulle andsin",
        "напомни, какой номер машины я тебе называл?",
    ],
)
async def test_a_question_about_the_citizens_own_words_is_no_clear_match(
    detector: LanguageDetector, message: str
) -> None:
    # The value noun ("plate", "номер машины") matches the vehicle tax clearly; the
    # question is still about what was said.
    tax = with_examples(cand("vehicle_tax", 0.9, matched=2, of=2), "tax for my car plate", "налог на машину")
    decision = await build(detector, [tax, cand("other", 0.79)]).decide("c1", message, None)
    assert decision.workflow is Workflow.CONTEXT and decision.reply, (message, decision.reasoning)


@pytest.mark.parametrize("message", ["ok bye", "ok, head aega", "ладно, пока"])
async def test_a_goodbye_after_the_greetings_question_is_a_goodbye(
    detector: LanguageDetector, message: str
) -> None:
    # "How can I help you today?" ends with a question, and "ok" is a yes; a goodbye
    # accepts nothing.
    history = [PriorMessage("user", "hei"), PriorMessage("assistant", "Hello! How can I help you today?")]
    decision = await build(detector, [ADDRESS, cand("other", 0.79)]).decide(
        "c1", message, None, history=history
    )
    assert decision.workflow is Workflow.CONTEXT and decision.reply, (message, decision.reasoning)
