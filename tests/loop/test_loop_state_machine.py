"""The turn state machine: questions, completion, corrections, continuation, limits."""

from __future__ import annotations

from loop_svc import questions
from loop_svc.extraction import RuleExtractor
from loop_svc.loop import Abandoned, Complete, NeedsInput, TurnLimits, TurnLoop
from loop_svc.schema import EndpointSpec
from loop_svc.session import Session, SessionState


def _start(loop: TurnLoop, endpoints: list[EndpointSpec], message: str, lang: str = "en") -> Session:
    return loop.new_session("chat-1", endpoints, language=lang, original_query=message)  # type: ignore[arg-type]


def test_two_turn_holidays_with_a_correction(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    loop = TurnLoop(extractor)
    session = _start(loop, [holidays], "What are the public holidays in Estonia?")
    step = loop.advance(session, session.original_query)
    assert isinstance(step.result, NeedsInput)
    assert step.result.missing == ["validFrom", "validTo"]
    assert step.result.endpoint_names == ["get_public_holidays"]
    assert step.session is not None and step.session.collected == {
        "get_public_holidays": {"countryIsoCode": "EE"}
    }
    assert step.session.asked == ["validFrom", "validTo"] and step.session.turn_count == 1

    step = loop.advance(step.session, "No, Latvia. 2026-01-01 to 2026-12-31")
    assert isinstance(step.result, Complete) and step.session is None
    (call,) = step.result.calls
    assert call.params == {"countryIsoCode": "LV", "validFrom": "2026-01-01", "validTo": "2026-12-31"}
    assert step.original_query == "What are the public holidays in Estonia?"
    assert step.llm_calls == 0


def test_complete_first_message_needs_no_session(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    loop = TurnLoop(extractor)
    message = "Millised on Eesti riigipühad 2026. aastal?"
    step = loop.advance(_start(loop, [holidays], message, "et"), message)
    assert isinstance(step.result, Complete) and step.session is None
    assert step.result.calls[0].params["validTo"] == "2026-12-31"


def test_continuation_yes_then_completion(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    loop = TurnLoop(extractor, TurnLimits(max_turns=5, continuation_turn=3))
    session = _start(loop, [holidays], "Какие праздники в Эстонии?", "ru")
    for reply in ("Какие праздники в Эстонии?", "не знаю"):
        step = loop.advance(session, reply)
        assert isinstance(step.result, NeedsInput) and not step.result.continuation
        assert step.session is not None
        session = step.session
    step = loop.advance(session, "позже")
    assert isinstance(step.result, NeedsInput) and step.result.continuation
    assert step.result.question == questions.CONTINUATION["ru"]
    assert step.session is not None and step.session.state is SessionState.AWAITING_CONTINUATION

    step = loop.advance(step.session, "да")
    assert isinstance(step.result, NeedsInput) and not step.result.continuation
    assert step.result.question.startswith("За какие даты")
    assert step.session is not None and step.session.state is SessionState.COLLECTING_PARAMS

    step = loop.advance(step.session, "с 2026-01-01 по 2026-12-31")
    assert isinstance(step.result, Complete)


def test_continuation_declined_abandons(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    loop = TurnLoop(extractor, TurnLimits(max_turns=5, continuation_turn=2))
    session = _start(loop, [holidays], "Eesti riigipühad", "et")
    step = loop.advance(session, "Eesti riigipühad")
    assert step.session is not None
    step = loop.advance(step.session, "hmm")
    assert isinstance(step.result, NeedsInput) and step.result.continuation and step.session is not None
    step = loop.advance(step.session, "2026")  # anything but yes ends it
    assert isinstance(step.result, Abandoned) and step.result.reason == "declined"
    assert step.session is None and step.original_query == "Eesti riigipühad"


def test_max_turns_abandons(extractor: RuleExtractor, holidays: EndpointSpec) -> None:
    loop = TurnLoop(extractor, TurnLimits(max_turns=5, continuation_turn=3))
    session = _start(loop, [holidays], "holidays please")
    results = []
    for reply in ("holidays please", "hmm", "what?", "yes", "I don't know"):
        step = loop.advance(session, reply)
        results.append(step.result)
        if step.session is None:
            break
        session = step.session
    assert [type(r).__name__ for r in results] == ["NeedsInput"] * 4 + ["Abandoned"]
    assert isinstance(results[2], NeedsInput) and results[2].continuation
    assert isinstance(results[-1], Abandoned) and results[-1].reason == "out_of_turns"


def test_parallel_endpoints_share_params_and_one_question(
    extractor: RuleExtractor, vehicle_tax: EndpointSpec, address_search: EndpointSpec
) -> None:
    loop = TurnLoop(extractor)
    message = "Find an address and calculate my vehicle tax"
    session = _start(loop, [address_search, vehicle_tax], message)
    assert session.max_turns == 6  # min(3 × 2, 9)
    step = loop.advance(session, message)
    assert isinstance(step.result, NeedsInput)
    assert step.result.missing == ["address", "calculationYear", "regNr"]
    assert step.result.endpoint_names == ["search_address", "get_vehicle_tax_info"]
    assert step.result.question == (
        "To look this up I need a few details: the address, the year and the vehicle registration number."
    )
    assert step.session is not None
    step = loop.advance(step.session, "123ABC")
    assert isinstance(step.result, NeedsInput) and step.result.missing == ["address", "calculationYear"]
    assert step.result.endpoint_names == ["search_address", "get_vehicle_tax_info"]
    assert step.session is not None
    step = loop.advance(step.session, "Viru tn 4, Tallinn and year 2026")
    assert isinstance(step.result, Complete)
    by_name = {c.endpoint.name: c.params for c in step.result.calls}
    assert by_name == {
        "search_address": {"address": "Viru tn 4, Tallinn", "calculationYear": "2026"},
        "get_vehicle_tax_info": {"regNr": "123ABC", "calculationYear": "2026"},
    }


def test_turn_limits_for_several_endpoints() -> None:
    limits = TurnLimits(max_turns=5)
    assert [limits.max_turns_for(n) for n in (1, 2, 3, 4)] == [5, 6, 9, 9]
    # The continuation prompt: at turn 3 for one endpoint, at the seed's turn 4 for several.
    assert [limits.continuation_turn_for(n) for n in (1, 2, 3)] == [3, 4, 4]


def test_a_multi_intent_session_asks_to_continue_at_turn_four(
    extractor: RuleExtractor, vehicle_tax: EndpointSpec, address_search: EndpointSpec
) -> None:
    loop = TurnLoop(extractor)
    session = _start(loop, [address_search, vehicle_tax], "My address and my car tax")
    assert session.continuation_turn == 4
    single = _start(loop, [vehicle_tax], "My car tax")
    assert single.continuation_turn == 3
    step = loop.advance(session, session.original_query)
    for _ in range(2):
        assert isinstance(step.result, NeedsInput) and not step.result.continuation
        step = loop.advance(step.session, "hmm")
    assert isinstance(step.result, NeedsInput) and not step.result.continuation  # turn 3: still asking
    step = loop.advance(step.session, "hmm")
    assert isinstance(step.result, NeedsInput) and step.result.continuation  # turn 4


def test_a_new_session_starts_with_what_the_history_states(
    extractor: RuleExtractor, holidays: EndpointSpec
) -> None:
    loop = TurnLoop(extractor)
    session = _start(loop, [holidays], "And the holidays in 2026?")
    history = [
        ("user", "I'm moving to Latvia soon."),
        ("assistant", "Good luck with the move! How can I help?"),
    ]
    seeded = loop.seed_from_history(session, history)
    assert seeded.collected == {holidays.name: {"countryIsoCode": "LV"}}
    step = loop.advance(seeded, "And the holidays in 2026?")
    assert isinstance(step.result, Complete)
    assert step.result.calls[0].params == {
        "countryIsoCode": "LV",
        "validFrom": "2026-01-01",
        "validTo": "2026-12-31",
    }
