"""Tiny real child processes for supervisor tests, and a stand-in classifier for `atc chat`."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import chat_pb2, turn_event_pb2
from devtools.redis_server import free_port
from devtools.supervisor import ChildSpec, http_ready
from services.runtime.server import GrpcServer, ServiceMount

# A child that serves GET / on its port, records its name when SIGTERM arrives,
# and misbehaves on request: crash (exits before ready), never-ready, stubborn
# (ignores SIGTERM), die (exits with code 3 once <record>.die exists), die-once (the
# same, but takes the trigger away: its restart serves).
CHILD_SCRIPT = r"""
import http.server, os, pathlib, signal, sys, threading, time
name, port, record, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
print(f"{name} booting", flush=True)
if mode == "crash":
    print(f"{name}: missing config", flush=True)
    sys.exit(2)
def on_term(signum, frame):
    with open(record, "a") as f:
        f.write(name + "\n")
    os._exit(0)
signal.signal(signal.SIGTERM, signal.SIG_IGN if mode == "stubborn" else on_term)
if mode != "never-ready":
    class Ok(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(name.encode())
        def log_message(self, *args):
            pass
    server = http.server.HTTPServer(("127.0.0.1", port), Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"{name} serving on {port}", flush=True)
trigger = pathlib.Path(record + ".die")
while True:
    if mode in ("die", "die-once") and trigger.exists():
        if mode == "die-once":
            trigger.unlink()
        sys.exit(3)
    time.sleep(0.05)
"""


@dataclass
class Children:
    """Builds ChildSpecs of CHILD_SCRIPT children that share one SIGTERM record file."""

    tmp_path: Path
    script: Path = field(init=False)
    record: Path = field(init=False)

    def __post_init__(self) -> None:
        self.script = self.tmp_path / "child.py"
        self.script.write_text(CHILD_SCRIPT)
        self.record = self.tmp_path / "terminated.txt"

    def spec(self, name: str, mode: str = "serve", ready_timeout: float = 20.0) -> ChildSpec:
        port = free_port()
        return ChildSpec(
            name=name,
            argv=[sys.executable, str(self.script), name, str(port), str(self.record), mode],
            ready=http_ready(f"http://127.0.0.1:{port}/"),
            ready_timeout=ready_timeout,
            address=f"http://127.0.0.1:{port}/",
        )

    def terminated(self) -> list[str]:
        return self.record.read_text().split() if self.record.exists() else []

    def make_die(self) -> None:
        (self.tmp_path / "terminated.txt.die").touch()


@pytest.fixture()
def children(tmp_path: Path) -> Children:
    return Children(tmp_path)


@dataclass
class ChatStandIn(classifier_pb2_grpc.ClassifierServiceServicer):
    turns: list[chat_pb2.ChatTurn] = field(default_factory=list)

    async def RouteTurn(self, request, context):  # type: ignore[no-untyped-def]
        self.turns.append(request.turn)
        te = turn_event_pb2
        words = [f"echo#{len(self.turns)}: ", *request.turn.message.split()]
        kind = te.TOKEN_KIND_QUESTION if request.turn.message.endswith("?") else te.TOKEN_KIND_ANSWER
        yield classifier_pb2.RouteTurnResponse(event=te.TurnEvent(progress=te.Progress(stage="classified")))
        for word in words:
            yield classifier_pb2.RouteTurnResponse(
                event=te.TurnEvent(token=te.Token(text=word + " ", kind=kind))
            )
        yield classifier_pb2.RouteTurnResponse(
            event=te.TurnEvent(end=te.End(outcome=te.TURN_OUTCOME_ANSWERED))
        )


@dataclass
class ChatServer:
    servicer: ChatStandIn
    address: str


@pytest.fixture()
async def chat_server() -> AsyncIterator[ChatServer]:
    servicer = ChatStandIn()
    server = GrpcServer(
        [
            ServiceMount.of(
                classifier_pb2,
                "ClassifierService",
                classifier_pb2_grpc.add_ClassifierServiceServicer_to_server,
                servicer,
            )
        ],
        port=0,
        grace_seconds=0.5,
    )
    await server.start()
    try:
        yield ChatServer(servicer, server.address)
    finally:
        await server.stop(0.5)
