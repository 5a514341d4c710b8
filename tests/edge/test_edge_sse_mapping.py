"""TurnEvent → SSE frame mapping (pure functions)."""

from __future__ import annotations

import json

import pytest
from google.rpc import error_details_pb2

from atc.common.v1 import turn_event_pb2 as te
from edge_svc.sse import TurnSummary, event_payload, to_sse_frame
from services.errors import Unavailable
from services.runtime.citizen import TEMPORARILY_UNAVAILABLE
from services.runtime.relay import failure_events


def test_token_frame_is_named_after_the_oneof_field_and_carries_the_text() -> None:
    frame = to_sse_frame("chat-1", te.TurnEvent(token=te.Token(text="Tere ", kind=te.TOKEN_KIND_ANSWER)))
    assert frame.event == "token"
    assert json.loads(frame.data) == {
        "chatId": "chat-1",
        "type": "token",
        "content": "Tere ",
        "text": "Tere ",
        "kind": "TOKEN_KIND_ANSWER",
    }
    assert frame.encode() == f"event: token\ndata: {frame.data}\n\n"


def test_end_frame_content_is_END_with_outcome_in_camel_case() -> None:
    event = te.TurnEvent(end=te.End(outcome=te.TURN_OUTCOME_ANSWERED, workflow=te.WORKFLOW_RAG, llm_calls=3))
    payload = event_payload("c", event)
    assert payload == {
        "chatId": "c",
        "type": "end",
        "content": "END",
        "outcome": "TURN_OUTCOME_ANSWERED",
        "workflow": "WORKFLOW_RAG",
        "llmCalls": 3,
        "fallbackQuery": "",
    }


@pytest.mark.parametrize(
    ("event", "kind", "content", "extra"),
    [
        (
            te.TurnEvent(question=te.Question(endpoint_names=["a"], missing_params=["countryIsoCode"])),
            "question",
            "",
            {"endpointNames": ["a"], "missingParams": ["countryIsoCode"]},
        ),
        (
            te.TurnEvent(progress=te.Progress(stage="calling", detail="calling a", endpoint_names=["a"])),
            "progress",
            "calling a",
            {"stage": "calling", "endpointNames": ["a"]},
        ),
        (
            te.TurnEvent(
                call_outcome=te.CallOutcome(
                    endpoint_name="a", success=False, http_status=0, summary="timeout"
                )
            ),
            "call_outcome",
            "timeout",
            {"endpointName": "a", "success": False, "httpStatus": 0, "resultId": ""},
        ),
    ],
)
def test_every_event_kind_maps_to_one_frame(event, kind, content, extra) -> None:  # type: ignore[no-untyped-def]
    frame = to_sse_frame("chat", event)
    payload = json.loads(frame.data)
    assert frame.event == kind == payload["type"]
    assert payload["content"] == content
    assert payload["chatId"] == "chat"
    for key, value in extra.items():
        assert payload[key] == value


def test_error_frame_carries_status_message_and_error_info() -> None:
    *tokens, error_event, end_event = failure_events(
        Unavailable("caller_svc is down", service="caller"), "et", request_id="r-1"
    )
    assert "".join(t.token.text for t in tokens) == TEMPORARILY_UNAVAILABLE["et"]
    frame = to_sse_frame("chat", error_event)
    payload = json.loads(frame.data)
    assert frame.event == "error"
    # The public form of the outage: the localized text, never the internal detail.
    assert payload["content"] == TEMPORARILY_UNAVAILABLE["et"]
    assert payload["code"] == 14
    (detail,) = payload["details"]
    assert detail["@type"].endswith(error_details_pb2.ErrorInfo.DESCRIPTOR.full_name)
    assert detail["reason"] == "TEMPORARILY_UNAVAILABLE"
    assert detail["metadata"] == {"request_id": "r-1"}
    assert to_sse_frame("chat", end_event).event == "end"


def test_frame_data_stays_on_one_line_for_multiline_tokens() -> None:
    frame = to_sse_frame("c", te.TurnEvent(token=te.Token(text="line 1\nline 2")))
    assert "\n" not in frame.data
    assert json.loads(frame.data)["content"] == "line 1\nline 2"


def test_empty_event_is_rejected() -> None:
    with pytest.raises(ValueError, match="no field set"):
        to_sse_frame("c", te.TurnEvent())


def test_turn_summary_folds_tokens_question_and_end() -> None:
    summary = TurnSummary()
    for event in [
        te.TurnEvent(progress=te.Progress(stage="classified", workflow=te.WORKFLOW_API_TOOL_CALLING)),
        te.TurnEvent(question=te.Question(endpoint_names=["h"], missing_params=["country"])),
        te.TurnEvent(token=te.Token(text="Which ", kind=te.TOKEN_KIND_QUESTION)),
        te.TurnEvent(token=te.Token(text="country?", kind=te.TOKEN_KIND_QUESTION)),
        te.TurnEvent(end=te.End(outcome=te.TURN_OUTCOME_NEEDS_INPUT, llm_calls=1)),
    ]:
        summary.add(event)
    assert summary.content == summary.question_text == "Which country?"
    assert summary.question == {"endpointNames": ["h"], "missingParams": ["country"]}
    assert (summary.outcome, summary.workflow, summary.llm_calls, summary.ended) == (
        "needs_input",
        "api_tool_calling",
        1,
        True,
    )
