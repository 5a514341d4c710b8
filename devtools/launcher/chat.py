"""`atc chat`: a terminal chat straight to classifier_svc's RouteTurn (no edge).

Lines come from stdin (typed or piped); tokens are printed as they arrive.
`/new` starts a new chat id, `/quit` (or end of input) exits.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TextIO

from atc.common.v1 import turn_event_pb2
from services.clients import ChatTurnInput, ClassifierClient, HistoryMessage
from services.errors import MeshError
from services.language import Lang
from services.runtime.channels import open_channel
from services.runtime.request_context import new_request_id

_QUESTION_STYLE = ("\x1b[33m", "\x1b[0m")  # yellow on a terminal


class TerminalChat:
    def __init__(
        self,
        client: ClassifierClient,
        *,
        out: TextIO,
        err: TextIO,
        language: Lang | None = None,
        timeout: float = 120.0,
        styled: bool = False,
        verbose: bool = False,
    ) -> None:
        self._client = client
        self._out = out
        self._err = err
        self._language = language
        self._timeout = timeout
        self._styled = styled
        self._verbose = verbose
        self.chat_id = ""
        self._history: list[HistoryMessage] = []
        # Whether stdout is mid-line, and whether this turn's "bot> " is written.
        self._line_open = False
        self._replying = False
        self.new_chat()

    def new_chat(self) -> None:
        self.chat_id = str(uuid.uuid4())
        self._history = []
        print(f"[chat {self.chat_id}]", file=self._err, flush=True)

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()

    async def send(self, message: str) -> str:
        """Stream one turn to the terminal; returns the reply text."""
        turn = ChatTurnInput(
            chat_id=self.chat_id,
            message=message,
            language=self._language,
            history=tuple(self._history),
            request_id=new_request_id(),
        )
        reply = ""
        self._replying = False
        try:
            async for event in self._client.route_turn(turn, timeout=self._timeout):
                reply += self._show(event)
        except MeshError as exc:
            self._note(f"error: {exc.message} ({exc.reason})")
        if self._line_open:
            self._write("\n")
            self._line_open = False
        self._history.append(HistoryMessage(role="user", content=message))
        if reply:
            self._history.append(HistoryMessage(role="assistant", content=reply))
        return reply

    def _token(self, text: str, question: bool) -> None:
        if not self._replying:
            self._write("bot> ")
            self._replying = True
        line_open = not text.endswith("\n")  # before styling adds its escape codes
        if self._styled and question:
            text = f"{_QUESTION_STYLE[0]}{text}{_QUESTION_STYLE[1]}"
        self._write(text)
        self._line_open = line_open

    def _note(self, text: str) -> None:
        """A side note on stderr, on its own line even in the middle of a reply."""
        if self._line_open:
            self._write("\n")
            self._line_open = False
        print(text, file=self._err, flush=True)

    def _show(self, event: turn_event_pb2.TurnEvent) -> str:
        kind = event.WhichOneof("kind")
        if kind == "token":
            self._token(event.token.text, event.token.kind == turn_event_pb2.TOKEN_KIND_QUESTION)
            return event.token.text
        if kind == "error":
            self._note(f"error: {event.error.message}")
        elif kind == "sources":
            listed = "; ".join(f"{s.title} <{s.url}>" if s.url else s.title for s in event.sources.sources)
            self._note(f"sources: {listed}")
        elif self._verbose and kind == "progress":
            self._note(f"[{event.progress.stage}] {event.progress.detail}")
        elif self._verbose and kind == "call_outcome":
            outcome = event.call_outcome
            self._note(f"[call {outcome.endpoint_name} → {outcome.http_status}]")
        elif self._verbose and kind == "end":
            name = turn_event_pb2.TurnOutcome.Name(event.end.outcome)
            self._note(f"[end {name} llm_calls={event.end.llm_calls}]")
        return ""


async def run_chat(
    target: str,
    *,
    stdin: TextIO,
    out: TextIO,
    err: TextIO,
    language: Lang | None = None,
    timeout: float = 120.0,
    verbose: bool = False,
) -> int:
    client = ClassifierClient(open_channel(target))
    interactive = stdin.isatty()
    chat = TerminalChat(
        client, out=out, err=err, language=language, timeout=timeout, styled=out.isatty(), verbose=verbose
    )
    print(f"[talking to classifier at {target}; /new for a new chat, /quit to exit]", file=err, flush=True)
    try:
        while True:
            if interactive:
                out.write("you> ")
                out.flush()
            line = await asyncio.to_thread(stdin.readline)
            if not line:
                return 0
            message = line.strip()
            if not message:
                continue
            if message == "/quit":
                return 0
            if message == "/new":
                chat.new_chat()
                continue
            await chat.send(message)
    finally:
        await client.close()
