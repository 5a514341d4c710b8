"""Router and API-tool decisions over scripted candidate lists (the ports are plain
in-memory implementations; the real indexer and loop are covered by the end-to-end tests
and tests/classifier/test_routing_cases.py)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from classifier_svc.api_matcher import Confidence, assess
from classifier_svc.api_tool import ApiToolMatcher, ApiToolPolicy, conversation_text
from classifier_svc.calibration import CalibrationProfile, ScoreThresholds
from classifier_svc.candidates import (
    ActiveSession,
    Candidate,
    ChatSnapshot,
    ExecutionMode,
    PendingParam,
    PriorMessage,
    Reason,
    Workflow,
)
from classifier_svc.catalogue_overview import Offer, Overview, StaticOverview
from classifier_svc.multi_intent import split_intents
from classifier_svc.offers import opens_with_acceptance
from classifier_svc.ports import EndpointDisambiguator, IntentDecomposer
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.small_talk import SmallTalk, SmallTalkKind, classify_small_talk
from services.language import Lang, LanguageDetector

PROFILE = CalibrationProfile(
    embedding_model="test-model",
    prototype=ScoreThresholds(accept=0.85, gap_weight=1.0),
    description=ScoreThresholds(accept=0.80, gap_weight=1.0),
    switch_margin=0.02,
)


def cand(name: str, score: float, rank: int = 1, *, prototype: bool = True, words: int = 3) -> Candidate:
    return Candidate(
        f"id-{name}",
        name,
        score,
        rank,
        matched_terms=1 if words else 0,
        query_terms=words,
        endpoint=name,
        prototype_cosine=score if prototype else 0.0,
        description_cosine=score - 0.05 if prototype else score,
        has_prototype=prototype,
    )


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
    def __init__(
        self, sessions: dict[str, ActiveSession] | None = None, owners: dict[str, str] | None = None
    ) -> None:
        self.sessions = sessions or {}
        self.owners = owners or {}
        self.dropped: list[tuple[str, str]] = []

    async def chat_state(
        self, chat_id: str, owner_id: str = "", message: str = "", lang: Lang | None = None
    ) -> ChatSnapshot:
        if self.owners.get(chat_id, owner_id) != owner_id:
            return ChatSnapshot(None)
        return ChatSnapshot(self.sessions.get(chat_id))

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None:
        self.dropped.append((chat_id, owner_id))
        self.sessions.pop(chat_id, None)


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def make_router(
    search: ScriptedSearch,
    sessions: Sessions,
    detector: LanguageDetector,
    *,
    disambiguator: EndpointDisambiguator | None = None,
    decomposer: IntentDecomposer | None = None,
) -> Router:
    matcher = ApiToolMatcher(
        search, ApiToolPolicy(profile=PROFILE), disambiguator=disambiguator, decomposer=decomposer
    )
    return Router(matcher, sessions, detector, RouterPolicy(), overview=StaticOverview(OVERVIEW))


# A catalogue of two endpoints and one knowledge page, titled in two languages.
OVERVIEW = Overview(
    offers=(
        Offer({"en": "Public holidays", "et": "Riigipühad"}, "Fetch national holidays."),
        Offer({}, "Search the address register for an address."),
    ),
    topics=(("en", "Renewing an ID card"), ("et", "ID-kaardi uuendamine")),
)


def test_assess_rejects_below_the_calibrated_score_and_accepts_a_clear_lead() -> None:
    assert assess([], PROFILE).confidence is Confidence.NONE
    # Everything scores about the same: an unrelated question.
    flat = assess([cand("a", 0.84), cand("b", 0.839), cand("c", 0.835)], PROFILE)
    assert flat.best is None and flat.top is not None and flat.top.name == "a"
    # Below the acceptance score, but far ahead of the rest: a short et/ru question.
    lead = assess([cand("a", 0.84), cand("b", 0.80)], PROFILE)
    assert lead.best is not None and lead.best.name == "a"
    high = assess([cand("a", 0.92), cand("b", 0.85)], PROFILE)
    assert high.confidence is Confidence.HIGH


def test_a_message_without_content_words_matches_nothing_on_its_own() -> None:
    # "2026-01-01 to 2026-12-31": however the dates embed, they name no endpoint.
    assert assess([cand("a", 0.95, words=0), cand("b", 0.8, 2, words=0)], PROFILE).best is None


def test_assess_compares_prototype_and_description_scores_by_margin() -> None:
    # 0.83 on the description scale (accept 0.80) beats 0.86 on the prototype scale (0.85).
    match = assess([cand("proto", 0.86), cand("desc", 0.83, 2, prototype=False)], PROFILE)
    assert match.best is not None and match.best.name == "desc"


async def test_new_match_routes_to_api_tool(detector: LanguageDetector) -> None:
    search = ScriptedSearch({"holidays": [cand("get_national_holidays", 0.9), cand("tax", 0.8, 2)]})
    decision = await make_router(search, Sessions(), detector).decide(
        "c1", "What are the public holidays in Estonia?", None
    )
    assert decision.workflow is Workflow.API_TOOL_CALLING
    assert decision.reason is Reason.NEW_MATCH
    assert [c.name for c in decision.endpoints] == ["get_national_holidays"]
    assert decision.language == "en"
    assert decision.llm_calls == 0 and not decision.llm_validated


async def test_no_match_is_out_of_domain_in_the_users_language(detector: LanguageDetector) -> None:
    search = ScriptedSearch({"ilm": [cand("a", 0.83), cand("b", 0.829)]})
    decision = await make_router(search, Sessions(), detector).decide(
        "c1", "Milline ilm on homme Tartus?", None
    )
    assert decision.workflow is Workflow.OOD
    assert decision.language == "et"
    assert decision.reply.startswith("Vabandust")


@pytest.mark.parametrize(
    ("message", "kind", "reply_start"),
    [
        # The catalogue's own titles (English where it has no Estonian one, the
        # description's first clause where it has none at all) and its knowledge pages.
        (
            "What can you do?",
            SmallTalkKind.CAPABILITIES,
            "I can look these up for you: public holidays or search the address register for an "
            "address. I can also answer questions about: renewing an ID card.",
        ),
        (
            "Mida sa oskad?",
            SmallTalkKind.CAPABILITIES,
            "Saan teie eest järele vaadata: riigipühad või search the address register for an address. "
            "Oskan vastata ka küsimustele teemadel: ID-kaardi uuendamine.",
        ),
        ("Привет, как дела?", SmallTalkKind.HOW_ARE_YOU, "Спасибо, у меня всё хорошо"),
        ("Tere!", SmallTalkKind.GREETING, "Tere!"),
    ],
)
async def test_small_talk_is_answered_even_when_an_endpoint_scores_high(
    detector: LanguageDetector, message: str, kind: SmallTalkKind, reply_start: str
) -> None:
    # Whole-message small talk is no API request however high an endpoint scores, unless
    # the catalogue registers it (tests/classifier/test_small_talk_catalogue.py): this
    # endpoint shares no word with it and is no conversation endpoint.
    search = ScriptedSearch({"": [cand("get_national_holidays", 0.95, words=0)]})
    decision = await make_router(search, Sessions(), detector).decide("c1", message, None)
    assert decision.workflow is Workflow.CONTEXT
    assert decision.reasoning == f"small talk: {kind.value}"
    assert decision.reply.startswith(reply_start)


async def test_an_answer_to_the_pending_question_skips_the_switch_search(detector: LanguageDetector) -> None:
    pending = (PendingParam("validFrom", "date"), PendingParam("validTo", "date"))
    sessions = Sessions({"c1": ActiveSession("c1", ("get_national_holidays",), "et", pending)})
    search = ScriptedSearch({"": [cand("get_electricity_prices", 0.95)]})
    decision = await make_router(search, sessions, detector).decide("c1", "2026-01-01 kuni 2026-12-31", None)
    assert decision.reason is Reason.SESSION_RESUME
    assert decision.language == "et"
    assert search.queries == [] and sessions.dropped == []


async def test_a_reply_that_answers_nothing_pending_can_switch_intent(detector: LanguageDetector) -> None:
    pending = (PendingParam("regNr", "string"),)
    sessions = Sessions(
        {"c1": ActiveSession("c1", ("get_vehicle_tax_info",), "en", pending)}, {"c1": "alice"}
    )
    search = ScriptedSearch({"holidays": [cand("get_national_holidays", 0.93), cand("x", 0.84, 2)]})
    router = make_router(search, sessions, detector)
    message = "Actually, what are the public holidays in Latvia this year?"
    dry = await router.decide("c1", message, None, dry_run=True, owner_id="alice")
    assert dry.reason is Reason.INTENT_SWITCH and sessions.dropped == []
    decision = await router.decide("c1", message, None, owner_id="alice")
    assert decision.reason is Reason.INTENT_SWITCH
    assert [c.name for c in decision.endpoints] == ["get_national_holidays"]
    assert sessions.dropped == [("c1", "alice")]


async def test_another_owners_session_is_neither_resumed_nor_dropped(detector: LanguageDetector) -> None:
    sessions = Sessions({"c1": ActiveSession("c1", ("get_vehicle_tax_info",), "en")}, {"c1": "alice"})
    search = ScriptedSearch({"holidays": [cand("get_national_holidays", 0.93), cand("x", 0.84, 2)]})
    decision = await make_router(search, sessions, detector).decide(
        "c1", "What are the public holidays in Latvia?", None, owner_id="mallory"
    )
    assert decision.reason is Reason.NEW_MATCH
    assert sessions.dropped == [] and "c1" in sessions.sessions


MULTI = {
    "aadress viru 4 tallinn ja arvuta": [
        cand("search_address", 0.86),
        cand("get_vehicle_tax_info", 0.858, 2),
    ],
    "leia aadress": [cand("search_address", 0.92), cand("get_vehicle_tax_info", 0.8, 2)],
    "sõidukimaks": [cand("get_vehicle_tax_info", 0.93), cand("search_address", 0.8, 2)],
    "адрес виру 4 и посчитай": [cand("search_address", 0.86), cand("get_vehicle_tax_info", 0.858, 2)],
    "найди адрес": [cand("search_address", 0.92), cand("get_vehicle_tax_info", 0.8, 2)],
    "налог": [cand("get_vehicle_tax_info", 0.93), cand("search_address", 0.8, 2)],
}


@pytest.mark.parametrize(
    "message",
    [
        "Leia aadress Viru 4 Tallinn ja arvuta ka mu sõidukimaks",
        "Найди адрес Виру 4 и посчитай налог на машину",
    ],
)
async def test_multi_intent_in_estonian_and_russian_goes_parallel(
    detector: LanguageDetector, message: str
) -> None:
    decision = await make_router(ScriptedSearch(MULTI), Sessions(), detector).decide("c1", message, None)
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
        ("Kuidas läheb?", SmallTalk(SmallTalkKind.HOW_ARE_YOU, "et")),
        ("Что ты умеешь?", SmallTalk(SmallTalkKind.CAPABILITIES, "ru")),
        ("Hello, what are the holidays?", None),
        ("What can you do about my car tax?", None),
    ],
)
def test_small_talk(text: str, talk: SmallTalk | None) -> None:
    assert classify_small_talk(text) == talk


@pytest.mark.parametrize(
    ("offer", "reply"),
    [
        ("I found Bocca. Do you want to reserve a table?", "That would be great, thanks"),
        ("Leidsin Bocca. Kas soovite broneerida laua (reserve a table)?", "jah, palun"),
        ("Я нашёл Bocca. Хотите забронировать столик (reserve a table)?", "да, давайте"),
    ],
)
async def test_an_affirmation_borrows_the_intent_of_the_last_offer(
    detector: LanguageDetector, offer: str, reply: str
) -> None:
    search = ScriptedSearch({"reserve a table": [cand("reserve_restaurant", 0.9), cand("x", 0.8, 2)]})
    router = make_router(search, Sessions(), detector)
    history = [PriorMessage("user", "Find me an Italian place in Tallinn"), PriorMessage("assistant", offer)]
    decision = await router.decide("c1", reply, None, history=history)
    assert [c.name for c in decision.endpoints] == ["reserve_restaurant"]
    assert decision.reasoning.startswith("affirms the last offer")


async def test_no_affirmation_no_borrowed_offer(detector: LanguageDetector) -> None:
    search = ScriptedSearch({"reserve a table": [cand("reserve_restaurant", 0.9), cand("x", 0.8, 2)]})
    router = make_router(search, Sessions(), detector)
    offer = [PriorMessage("assistant", "I found Bocca. Do you want to reserve a table?")]
    # Without an affirmation the history is not borrowed ("Thanks!" after an answer).
    assert (
        await router.decide("c2", "Thanks, that is all.", None, history=offer)
    ).workflow is not Workflow.API_TOOL_CALLING
    assert (await router.decide("c3", "Yes, please.", None)).workflow is Workflow.OOD
    # "OK" after an answer is not an affirmed offer.
    answered = [PriorMessage("assistant", "I reserved a table for you at Bocca.")]
    assert (await router.decide("c4", "ok", None, history=answered)).workflow is Workflow.OOD


def _reservation_search() -> ScriptedSearch:
    # "Shall I make a reservation?" fits a room, a table and a car about equally; the
    # messages before it say which (scripted by the city the user searched in).
    return ScriptedSearch(
        {
            "hotel in tartu": [cand("reserve_hotel", 0.92), cand("search_hotel", 0.93, 2)],
            "table in tallinn": [cand("reserve_restaurant", 0.92), cand("find_restaurant", 0.93, 2)],
            "car in parnu": [cand("reserve_car", 0.92), cand("find_car", 0.93, 2)],
            "make a reservation": [
                cand("reserve_restaurant", 0.90),
                cand("reserve_hotel", 0.89, 2),
                cand("reserve_car", 0.85, 3),
            ],
        }
    )


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        ("Find me a hotel in Tartu for Friday", "reserve_hotel"),
        ("Find me a table in Tallinn tonight", "reserve_restaurant"),
    ],
)
async def test_an_affirmation_takes_the_domain_of_the_conversation(
    detector: LanguageDetector, asked: str, expected: str
) -> None:
    router = make_router(_reservation_search(), Sessions(), detector)
    history = [
        PriorMessage("user", asked),
        PriorMessage("assistant", "I found one. Shall I make a reservation for you?"),
    ]
    decision = await router.decide("c1", "Yes, please.", None, history=history)
    assert [c.name for c in decision.endpoints] == [expected]


async def test_conversation_context_only_chooses_among_close_candidates(detector: LanguageDetector) -> None:
    # The car the user searched for is 0.05 behind the best reading of the reply: the
    # conversation cannot carry it past what the reply itself says.
    router = make_router(_reservation_search(), Sessions(), detector)
    history = [
        PriorMessage("user", "Find me a car in Parnu"),
        PriorMessage("assistant", "I found one. Shall I make a reservation for you?"),
    ]
    decision = await router.decide("c1", "Yes, please.", None, history=history)
    assert [c.name for c in decision.endpoints] == ["reserve_restaurant"]


def api_cand(api: str, name: str, score: float, *, acts: bool = False) -> Candidate:
    """A candidate of the API at https://{api}.example.test/ (an operation per path)."""
    endpoint = SimpleNamespace(
        url=f"https://{api}.example.test/v1/{name}/{{id}}", method="POST" if acts else "GET"
    )
    return replace(cand(name, score), endpoint=endpoint)


def test_an_endpoints_api_is_its_url_without_the_operation() -> None:
    assert api_cand("buses", "find_bus", 0.9).api == "buses.example.test/v1"
    assert api_cand("buses", "buy_bus_ticket", 0.9, acts=True).api == "buses.example.test/v1"
    assert api_cand("buses", "buy_bus_ticket", 0.9, acts=True).acts
    assert not api_cand("buses", "find_bus", 0.9).acts
    # Without a URL an endpoint is an API of its own.
    assert cand("reserve_car", 0.9).api == "reserve_car"


def _bus_trip_search() -> ScriptedSearch:
    return ScriptedSearch(
        {
            # The conversation so far: a bus search (it matched the search, not the purchase).
            "bus to fresno": [api_cand("buses", "find_bus", 0.93), api_cand("events", "find_events", 0.84)],
            # "make me a reservation" names no domain: a table leads a bus ticket by a hair.
            "make me a reservation": [
                api_cand("restaurants", "reserve_restaurant", 0.905, acts=True),
                api_cand("buses", "buy_bus_ticket", 0.90, acts=True),
            ],
            # Clearly about a restaurant.
            "table for two": [
                api_cand("restaurants", "reserve_restaurant", 0.93, acts=True),
                api_cand("buses", "buy_bus_ticket", 0.88, acts=True),
            ],
        }
    )


_BUS_HISTORY = [
    PriorMessage("user", "I need a bus to Fresno on Friday"),
    PriorMessage("assistant", "There is a bus at 8:40 am for $30."),
]


async def test_a_near_tie_goes_to_the_api_the_conversation_is_about(detector: LanguageDetector) -> None:
    router = make_router(_bus_trip_search(), Sessions(), detector)
    decision = await router.decide("c1", "Can you make me a reservation?", None, history=_BUS_HISTORY)
    assert [c.name for c in decision.endpoints] == ["buy_bus_ticket"]
    # With no conversation the reply's own best stands.
    alone = await router.decide("c2", "Can you make me a reservation?", None)
    assert [c.name for c in alone.endpoints] == ["reserve_restaurant"]


async def test_a_clear_match_never_searches_the_conversation(detector: LanguageDetector) -> None:
    search = _bus_trip_search()
    router = make_router(search, Sessions(), detector)
    decision = await router.decide("c1", "Book a table for two at Bocca", None, history=_BUS_HISTORY)
    assert [c.name for c in decision.endpoints] == ["reserve_restaurant"]
    assert all("bus to fresno" not in q.lower() for q in search.queries)


async def test_a_yes_reads_the_offer_with_the_reply(detector: LanguageDetector) -> None:
    # "I need 2 tickets" alone is a movie ticket; after "buy tickets for this bus?" it is a bus ticket.
    search = ScriptedSearch(
        {
            "tickets for this bus": [
                api_cand("buses", "buy_bus_ticket", 0.93, acts=True),
                api_cand("movies", "buy_movie_tickets", 0.88, acts=True),
            ],
            "i need 2 tickets": [
                api_cand("movies", "buy_movie_tickets", 0.92, acts=True),
                api_cand("buses", "buy_bus_ticket", 0.86, acts=True),
            ],
        }
    )
    router = make_router(search, Sessions(), detector)
    history = [*_BUS_HISTORY[:1], PriorMessage("assistant", "Would you like to buy tickets for this bus?")]
    decision = await router.decide("c1", "Yes, I need 2 tickets.", None, history=history)
    assert [c.name for c in decision.endpoints] == ["buy_bus_ticket"]
    assert decision.reasoning.startswith("affirms the last offer")


@pytest.mark.parametrize(
    ("acting", "looking_up", "expected"),
    [
        # A near tie within one API: look up first.
        (
            api_cand("buses", "buy_bus_ticket", 0.91, acts=True),
            api_cand("buses", "find_bus", 0.905),
            "find_bus",
        ),
        # A lookup of another API is another question: the action stands.
        (
            api_cand("buses", "buy_bus_ticket", 0.91, acts=True),
            api_cand("trains", "find_train", 0.905),
            "buy_bus_ticket",
        ),
        # A clear lead for the action stands.
        (
            api_cand("buses", "buy_bus_ticket", 0.93, acts=True),
            api_cand("buses", "find_bus", 0.90),
            "buy_bus_ticket",
        ),
    ],
)
async def test_with_no_conversation_a_lookup_wins_a_near_tie_with_an_action_of_its_api(
    detector: LanguageDetector, acting: Candidate, looking_up: Candidate, expected: str
) -> None:
    router = make_router(ScriptedSearch({"bus": [acting, looking_up]}), Sessions(), detector)
    decision = await router.decide("c1", "I want a bus ticket to Fresno", None)
    assert [c.name for c in decision.endpoints] == [expected]


@pytest.mark.parametrize(
    ("message", "accepts"),
    [
        ("That will work, please reserve.", True),
        ("Sounds good. Can you make me a reservation?", True),
        ("Perfect! Book it.", True),
        ("See sobib mulle, broneeri palun.", True),
        ("Это подходит. Купите билет.", True),
        ("That is all, thanks.", False),
        ("Great.", False),
        ("Find me a bus, then a hotel.", False),
    ],
)
def test_a_message_opening_by_accepting_what_was_shown(message: str, accepts: bool) -> None:
    assert opens_with_acceptance(message) is accepts


def test_the_conversation_is_searched_by_the_opening_words_of_its_latest_messages() -> None:
    history = [
        PriorMessage("user", "Find me a bus to Fresno"),
        PriorMessage("assistant", "Buses on Friday: " + "8:40 am $30, " * 200),
        PriorMessage("user", "The first one, please"),
        PriorMessage("assistant", "Shall I book it?"),
        PriorMessage("user", "Yes"),
    ]
    text = conversation_text(history, 90)
    assert len(text) <= 90
    # The latest messages whole, the long answer by its opening words, in their order;
    # the oldest message no longer fits.
    assert text == "Buses on Friday: 8:40 am $30, The first one, please Shall I book it? Yes"
    assert conversation_text(history, 1000).startswith("Find me a bus to Fresno Buses on Friday")
