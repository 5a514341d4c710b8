"""Router decisions over scripted candidate lists (the ports are plain in-memory
implementations; the real indexer and loop are covered by the end-to-end tests)."""

from __future__ import annotations

import pytest

from classifier_svc.api_matcher import Confidence, Thresholds, assess
from classifier_svc.candidates import ActiveSession, Candidate, ExecutionMode, PriorMessage, Reason, Workflow
from classifier_svc.multi_intent import split_intents
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.small_talk import SmallTalk, SmallTalkKind, classify_small_talk
from services.language import LanguageDetector

THRESHOLDS = Thresholds(minimum=0.77, high=0.82, gap=0.0, min_term_coverage=0.5, dense_only=0.88)


def cand(name: str, cosine: float, rank: int, matched: int = 2, of: int = 3) -> Candidate:
    return Candidate(f"id-{name}", name, cosine, rank, matched_terms=matched, query_terms=of, endpoint=name)


class ScriptedSearch:
    """Answers each query with the candidates scripted for the first matching key."""

    def __init__(self, script: dict[str, list[Candidate]]) -> None:
        self.script = script
        self.queries: list[str] = []

    async def search(self, query: str, limit: int) -> list[Candidate]:
        self.queries.append(query)
        for key, candidates in self.script.items():
            if key.lower() in query.lower():
                return candidates[:limit]
        return []


class Sessions:
    def __init__(self, sessions: dict[str, ActiveSession] | None = None) -> None:
        self.sessions = sessions or {}
        self.dropped: list[str] = []

    async def active_session(self, chat_id: str, owner_id: str = "") -> ActiveSession | None:
        return self.sessions.get(chat_id)

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None:
        self.dropped.append(chat_id)
        self.sessions.pop(chat_id, None)


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def make_router(search: ScriptedSearch, sessions: Sessions, detector: LanguageDetector) -> Router:
    policy = RouterPolicy(thresholds=THRESHOLDS, intent_switch_threshold=0.85, search_limit=5)
    return Router(search, sessions, detector, policy)


def test_assess_bands() -> None:
    assert assess([], THRESHOLDS).confidence is Confidence.NONE
    assert assess([cand("a", 0.76, 1)], THRESHOLDS).confidence is Confidence.NONE
    high = assess([cand("a", 0.86, 1), cand("b", 0.82, 2)], THRESHOLDS)
    assert high.confidence is Confidence.HIGH and high.best.name == "a"
    # Among eligible candidates the cosine decides; an ineligible one never wins.
    ranked = assess([cand("a", 0.825, 1), cand("b", 0.83, 2), cand("c", 0.86, 3, matched=0)], THRESHOLDS)
    assert ranked.best.name == "b"
    # One matched word is not enough for high confidence.
    single_word = assess([cand("a", 0.85, 1, matched=1, of=2)], THRESHOLDS)
    assert single_word.confidence is Confidence.MEDIUM


def test_term_coverage_ignores_names_the_endpoint_lacks() -> None:
    # "Otsi aadressi Rüütli 10 Tartu": two intent words, one matched; the names are not counted.
    assert cand("a", 0.8, 1, matched=1, of=2).term_coverage == 0.5
    # A matched name can lift coverage, never above 1.
    assert cand("a", 0.8, 1, matched=3, of=2).term_coverage == 1.0
    # Only names in the query: any match is full evidence, none is no evidence.
    assert cand("a", 0.8, 1, matched=1, of=0).term_coverage == 1.0
    assert cand("a", 0.8, 1, matched=0, of=0).term_coverage == 0.0


def test_cosine_alone_is_not_enough_without_words_in_common() -> None:
    # A parameter reply ("2026-01-01 to 2026-12-31") has no content words at all.
    assert assess([cand("tax", 0.82, 1, matched=0, of=0)], THRESHOLDS).confidence is Confidence.NONE
    # An unrelated question that shares one word in five.
    assert assess([cand("tax", 0.81, 1, matched=1, of=5)], THRESHOLDS).confidence is Confidence.NONE
    # A paraphrase with a very high cosine counts without shared words.
    assert assess([cand("tax", 0.9, 1, matched=0, of=4)], THRESHOLDS).best.name == "tax"


async def test_new_match_routes_to_api_tool(detector: LanguageDetector) -> None:
    search = ScriptedSearch({"holidays": [cand("get_national_holidays", 0.9, 1), cand("tax", 0.8, 2)]})
    decision = await make_router(search, Sessions(), detector).decide(
        "c1", "What are the public holidays in Estonia?", None
    )
    assert decision.workflow is Workflow.API_TOOL_CALLING
    assert decision.reason is Reason.NEW_MATCH
    assert [c.name for c in decision.endpoints] == ["get_national_holidays"]
    assert decision.language == "en"


async def test_no_match_is_out_of_domain_in_the_users_language(detector: LanguageDetector) -> None:
    decision = await make_router(ScriptedSearch({}), Sessions(), detector).decide(
        "c1", "Milline ilm on homme Tartus?", None
    )
    assert decision.workflow is Workflow.OOD
    assert decision.language == "et"
    assert decision.reply.startswith("Vabandust")


async def test_greeting_goes_to_context(detector: LanguageDetector) -> None:
    decision = await make_router(ScriptedSearch({}), Sessions(), detector).decide("c1", "Tere!", None)
    assert decision.workflow is Workflow.CONTEXT
    assert decision.reply == "Tere! Kuidas saan teid täna aidata?"


async def test_active_session_short_circuits_with_session_language(detector: LanguageDetector) -> None:
    sessions = Sessions({"c1": ActiveSession("c1", ("get_national_holidays",), "et")})
    search = ScriptedSearch({"2026": [cand("get_electricity_prices", 0.82, 1)]})
    decision = await make_router(search, sessions, detector).decide("c1", "2026-01-01 to 2026-12-31", None)
    assert decision.reason is Reason.SESSION_RESUME
    assert decision.language == "et"
    assert sessions.dropped == []


async def test_strong_match_for_another_endpoint_switches_intent(detector: LanguageDetector) -> None:
    sessions = Sessions({"c1": ActiveSession("c1", ("get_national_holidays",), "en")})
    search = ScriptedSearch({"vehicle tax": [cand("get_vehicle_tax_info", 0.9, 1), cand("x", 0.8, 2)]})
    router = make_router(search, sessions, detector)
    dry = await router.decide("c1", "How much is the vehicle tax for my car?", None, dry_run=True)
    assert dry.reason is Reason.INTENT_SWITCH and sessions.dropped == []
    decision = await router.decide("c1", "How much is the vehicle tax for my car?", None)
    assert decision.reason is Reason.INTENT_SWITCH
    assert [c.name for c in decision.endpoints] == ["get_vehicle_tax_info"]
    assert sessions.dropped == ["c1"]


async def test_multi_intent_in_ambiguous_band_goes_parallel(detector: LanguageDetector) -> None:
    search = ScriptedSearch(
        {
            "me and also": [
                cand("search_address", 0.82, 1, 2, 5),
                cand("get_vehicle_tax_info", 0.815, 2, 2, 5),
            ],
            "find an address": [
                cand("search_address", 0.85, 1, 1, 2),
                cand("get_vehicle_tax_info", 0.8, 2, 0, 2),
            ],
            "calculate my vehicle tax": [
                cand("get_vehicle_tax_info", 0.9, 1),
                cand("search_address", 0.8, 2, 0),
            ],
        }
    )
    decision = await make_router(search, Sessions(), detector).decide(
        "c1", "Can you find an address for me and also calculate my vehicle tax?", None
    )
    assert decision.mode is ExecutionMode.PARALLEL
    assert {c.name for c in decision.endpoints} == {"search_address", "get_vehicle_tax_info"}


def test_split_intents() -> None:
    assert split_intents("What are the public holidays in Estonia?", 3) == []
    assert split_intents("Find an address for me and also calculate my vehicle tax", 3) == [
        "Find an address for me",
        "calculate my vehicle tax",
    ]
    assert len(split_intents("Millised on riigipühad ja kui suur on sõidukimaks", 3)) == 2


@pytest.mark.parametrize(
    ("text", "talk"),
    [
        ("Hello!", SmallTalk(SmallTalkKind.GREETING, "en")),
        ("tere", SmallTalk(SmallTalkKind.GREETING, "et")),
        ("Спасибо большое", SmallTalk(SmallTalkKind.THANKS, "ru")),
        ("Hello, what are the holidays?", None),
    ],
)
def test_small_talk(text: str, talk: SmallTalk | None) -> None:
    assert classify_small_talk(text) == talk


async def test_an_affirmation_borrows_the_intent_of_the_last_offer(detector: LanguageDetector) -> None:
    search = ScriptedSearch({"reserve a table": [cand("reserve_restaurant", 0.86, 1)]})
    router = make_router(search, Sessions(), detector)
    offer = [
        PriorMessage("user", "Find me an Italian place in Tallinn"),
        PriorMessage("assistant", "I found Bocca. Do you want to reserve a table?"),
    ]
    decision = await router.decide("c1", "Yes, please.", None, history=offer)
    assert [c.name for c in decision.endpoints] == ["reserve_restaurant"]
    assert decision.reasoning.startswith("affirms the last offer")
    # Without an affirmation the history is not borrowed ("Thanks!" after an answer).
    assert (await router.decide("c2", "Thanks, that is all.", None, history=offer)).workflow is Workflow.OOD
    assert (await router.decide("c3", "Yes, please.", None)).workflow is Workflow.OOD
    # "OK" after an answer is not an affirmed offer.
    answered = [PriorMessage("assistant", "I reserved a table for you at Bocca.")]
    assert (await router.decide("c4", "ok", None, history=answered)).workflow is Workflow.OOD
