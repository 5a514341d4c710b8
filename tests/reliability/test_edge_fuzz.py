"""Fuzz of the edge's chat routes: 10,000 generated request bodies (valid, almost valid,
wrong types, broken JSON, broken UTF-8) never get a 5xx, every rejection is a 4xx with a
message, and only accepted turns reach the classifier (a recording stand-in over real gRPC).
Large adversarial bodies (up to the size limit of quotes, backslashes and brackets: what
made a backtracking depth check quadratic) each cost the edge less than a CPU-time budget,
measured in this process (the app runs in it), not by a wall clock."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import grpc
import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import turn_event_pb2
from edge_svc.app import create_app
from edge_svc.settings import EdgeSettings
from services.clients import ClassifierClient, IndexerClient
from services.runtime.channels import open_channel
from services.runtime.server import GrpcServer, ServiceMount

BATCH = 50
EXAMPLES = 200  # x BATCH requests


class RecordingClassifier(classifier_pb2_grpc.ClassifierServiceServicer):
    def __init__(self) -> None:
        self.turns = 0

    async def RouteTurn(  # type: ignore[override]
        self, request: classifier_pb2.RouteTurnRequest, context: grpc.aio.ServicerContext
    ) -> Any:
        self.turns += 1
        te = turn_event_pb2
        yield classifier_pb2.RouteTurnResponse(event=te.TurnEvent(token=te.Token(text="ok")))
        yield classifier_pb2.RouteTurnResponse(
            event=te.TurnEvent(end=te.End(outcome=te.TURN_OUTCOME_ANSWERED))
        )


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
texts = st.one_of(
    st.text(max_size=60),
    st.just(""),
    st.just("   \n\t"),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=40),
    st.integers(9_990, 10_010).map(lambda n: "x" * n),
    st.sampled_from(["What are the public holidays in Estonia?", "Millised on riigipühad?", "Привет"]),
)
history_items = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "bot", "system", ""]), "content": texts}
)
fields = {
    "chatId": st.one_of(texts, json_values),
    "message": st.one_of(texts, texts, json_values),
    "language": st.one_of(st.sampled_from(["en", "et", "ru", "lv", "EN", ""]), json_values),
    "conversationHistory": st.one_of(st.lists(history_items, max_size=3), json_values),
    "authorId": st.one_of(texts, json_values),
    "unexpected": json_values,
}
bodies = st.one_of(
    st.fixed_dictionaries({}, optional=fields).map(lambda d: json.dumps(d).encode()),
    st.fixed_dictionaries({"chatId": texts, "message": texts}).map(lambda d: json.dumps(d).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=80),
    st.text(max_size=80).map(lambda t: t.encode("utf-8", "surrogatepass")),
)


def test_generated_requests_never_get_a_5xx_and_rejections_reach_nobody() -> None:
    with asyncio.Runner() as runner:
        classifier = RecordingClassifier()
        mount = ServiceMount.of(
            classifier_pb2,
            "ClassifierService",
            classifier_pb2_grpc.add_ClassifierServiceServicer_to_server,
            classifier,
        )
        server = GrpcServer([mount], grace_seconds=0)
        runner.run(server.start())
        channel = open_channel(server.address)
        app = create_app(
            EdgeSettings(port=0, max_concurrent_rpcs=0),
            classifier=ClassifierClient(channel),
            indexer=IndexerClient(channel),
        )
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://edge")
        sent = [0]

        async def send_all(path: str, batch: list[bytes]) -> list[httpx.Response]:
            headers = {"content-type": "application/json"}
            return await asyncio.gather(*(client.post(path, content=body, headers=headers) for body in batch))

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(batch=st.lists(bodies, min_size=BATCH, max_size=BATCH), stream=st.booleans())
        def check(batch: list[bytes], stream: bool) -> None:
            before = classifier.turns
            path = "/v1/orchestrate/stream" if stream else "/v1/orchestrate"
            responses = runner.run(send_all(path, batch))
            sent[0] += len(responses)
            accepted = 0
            for body, response in zip(batch, responses, strict=True):
                assert response.status_code < 500, (body, response.status_code, response.text)
                if response.status_code == 200:
                    accepted += 1
                else:
                    assert response.status_code in (400, 403, 413, 415, 422), (body, response.status_code)
                    assert response.json()["error"]["message"], body
                    if response.status_code == 403:
                        # Generated chat ids repeat: each request is a new anonymous owner.
                        assert response.json()["error"]["reason"] == "OWNED_BY_ANOTHER"
            assert classifier.turns - before == accepted, "a rejected request reached the classifier"

        try:
            check()
        finally:
            runner.run(client.aclose())
            runner.run(channel.close(None))
            runner.run(server.stop(0))
    assert sent[0] >= 10_000
    assert 0 < classifier.turns < sent[0], "the generator must make both valid and invalid requests"


LIMIT = EdgeSettings().max_body_bytes
# Seconds of this process's CPU per request: a linear pass over 256 KiB takes a few
# milliseconds; the quadratic regex took 30 s for 128 KiB.
CPU_BUDGET_SECONDS = 0.5


def _fill(prefix: bytes, unit: bytes, suffix: bytes = b"") -> bytes:
    room = LIMIT - len(prefix) - len(suffix)
    return prefix + unit * (room // len(unit)) + suffix


ADVERSARIAL = {
    # An unterminated string of escaped quotes (the reported one).
    "escaped-quotes": _fill(b'{"chatId": "c", "message": "', b'\\"'),
    "bare-quote-then-escapes": _fill(b'"', b'\\"'),
    "backslash-runs": _fill(b'{"message": "', b"\\\\\\"),
    "quotes-only": _fill(b"", b'"'),
    "alternating": _fill(b'{"a": "', b'\\"\\\\"'),
    "brackets-in-strings": _fill(b'{"chatId": "c", "message": "', b'[{\\"', b'"}'),
    "deep-then-quotes": _fill(b"[" * 5000, b'\\"'),
    "valid-long-message": _fill(b'{"chatId": "c", "message": "', b'a\\"', b'"}'),
}


def test_large_adversarial_bodies_cost_bounded_cpu() -> None:
    classifier = RecordingClassifier()

    async def run() -> dict[str, tuple[int, float]]:
        mount = ServiceMount.of(
            classifier_pb2,
            "ClassifierService",
            classifier_pb2_grpc.add_ClassifierServiceServicer_to_server,
            classifier,
        )
        server = GrpcServer([mount], grace_seconds=0)
        await server.start()
        channel = open_channel(server.address)
        app = create_app(
            EdgeSettings(port=0), classifier=ClassifierClient(channel), indexer=IndexerClient(channel)
        )
        costs: dict[str, tuple[int, float]] = {}
        try:
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://edge"
            ) as client:
                for name, body in ADVERSARIAL.items():
                    assert len(body) <= LIMIT
                    started = time.process_time()
                    reply = await client.post(
                        "/v1/orchestrate", content=body, headers={"content-type": "application/json"}
                    )
                    costs[name] = (reply.status_code, time.process_time() - started)
                # The edge still answers at once after all of them.
                started = time.process_time()
                assert (await client.get("/healthz")).status_code == 200
                assert time.process_time() - started < CPU_BUDGET_SECONDS
        finally:
            await channel.close(None)
            await server.stop(0)
        return costs

    costs = asyncio.run(run())
    for name, (status, cpu) in costs.items():
        assert status < 500, (name, status)
        assert cpu < CPU_BUDGET_SECONDS, f"{name}: {cpu:.3f} s of CPU for one request"
    assert costs["escaped-quotes"][0] == 400 and costs["valid-long-message"][0] in (200, 400)
