"""Relaying another service's stream of TurnEvents.

Every hop of a turn (edge → classifier → loop → caller) forwards the events the next one
streams. The rules are the same at each hop: stop after End, treat a failed call or a
stream without End as broken, and cancel the downstream call as soon as this hop stops
reading — also when its own client went away — so no work runs on for nobody.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

import grpc

from atc.common.v1 import turn_event_pb2
from services.errors import MeshError
from services.language import Lang
from services.runtime.citizen import public_error, try_again_text
from services.runtime.status import error_event
from services.tokens import split_tokens


class BrokenStream(Exception):
    """The downstream stream failed (`rpc_error`), or ended without its End event."""

    def __init__(self, message: str, rpc_error: grpc.aio.AioRpcError | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rpc_error = rpc_error


async def relay_events(
    call: grpc.aio.UnaryStreamCall[Any, Any],
    source: str,
    *,
    on_response: Callable[[Any], None] | None = None,
) -> AsyncGenerator[turn_event_pb2.TurnEvent, None]:
    """The `event` of each response of `call` (a server stream from `source`, e.g.
    "caller_svc"), up to and including End; raises BrokenStream when the call fails or
    the stream ends before End. `on_response` sees each relayed response whole first
    (what it carries beside its event, e.g. the caller's CachedResult).

    After End nothing more is relayed, but the stream is read to its close when the
    consumer asks on: the other hop may still be finishing its turn, which cancelling it
    at End would cut off. (Work that must survive a reader stopping at End — the loop's
    cache write — is scheduled before End is sent.)

    Read it inside `contextlib.aclosing(...)`: closing it early cancels the call. The
    cancel is synchronous on purpose — cleanup that awaited could be interrupted by the
    consumer's own cancellation before the downstream call is stopped."""
    ended = False
    try:
        async for response in call:
            if ended:
                continue
            if on_response is not None:
                on_response(response)
            event: turn_event_pb2.TurnEvent = response.event
            yield event
            ended = event.HasField("end")
    except grpc.aio.AioRpcError as error:
        if not ended:
            # The detail is for logs (failure_events logs it with the request id), never a reply.
            raise BrokenStream(f"{source} failed: {error.code().name}: {error.details()}", error) from error
    finally:
        call.cancel()
    if not ended:
        raise BrokenStream(f"{source} ended its stream without an End event")


def failure_events(
    error: MeshError,
    lang: Lang | None = None,
    *,
    workflow: int = turn_event_pb2.WORKFLOW_UNSPECIFIED,
    llm_calls: int = 0,
    where: str = "",
    request_id: str | None = None,
) -> list[turn_event_pb2.TurnEvent]:
    """How a hop ends a turn it cannot finish: the localized "temporarily unavailable,
    please try again" as answer tokens, the public form of the error as an in-stream
    error event (services.runtime.citizen: no internal detail; that is logged there with
    the request id), End(FAILED)."""
    public = public_error(error, lang, where=where, request_id=request_id)
    text = try_again_text(lang) if public is not error else ""
    tokens = [
        turn_event_pb2.TurnEvent(
            token=turn_event_pb2.Token(text=piece, kind=turn_event_pb2.TOKEN_KIND_ANSWER)
        )
        for piece in split_tokens(text)
    ]
    end = turn_event_pb2.End(
        outcome=turn_event_pb2.TURN_OUTCOME_FAILED, workflow=workflow, llm_calls=llm_calls
    )
    return [*tokens, error_event(public), turn_event_pb2.TurnEvent(end=end)]
