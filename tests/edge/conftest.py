"""Real in-process gRPC stand-ins for the classifier and indexer (the real ones are
built in parallel), and the edge app wired to them through real channels."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx
import pytest

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import catalogue_pb2, chat_pb2, turn_event_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from edge_svc.app import EdgeApps, create_apps
from edge_svc.settings import EdgeSettings
from services.clients import ClassifierClient, IndexerClient
from services.errors import InvalidArgument, NotFound, PermissionDenied, Unavailable
from services.runtime.channels import open_channel
from services.runtime.server import GrpcServer, ServiceMount
from services.runtime.status import abort_with

TE = turn_event_pb2


def token(text: str, kind: int = TE.TOKEN_KIND_ANSWER) -> TE.TurnEvent:
    return TE.TurnEvent(token=TE.Token(text=text, kind=kind))  # type: ignore[arg-type]


# What the stand-in classifier streams for each scripted message.
SCRIPTS: dict[str, list[TE.TurnEvent]] = {
    "holidays": [
        TE.TurnEvent(
            progress=TE.Progress(
                stage="classified",
                detail="matched get_national_holidays",
                workflow=TE.WORKFLOW_API_TOOL_CALLING,
                endpoint_names=["get_national_holidays"],
                confidence=0.91,
            )
        ),
        TE.TurnEvent(
            question=TE.Question(endpoint_names=["get_national_holidays"], missing_params=["countryIsoCode"])
        ),
        token("Which ", TE.TOKEN_KIND_QUESTION),
        token("country?", TE.TOKEN_KIND_QUESTION),
        TE.TurnEvent(
            end=TE.End(
                outcome=TE.TURN_OUTCOME_NEEDS_INPUT, workflow=TE.WORKFLOW_API_TOOL_CALLING, llm_calls=1
            )
        ),
    ],
    "Estonia": [
        TE.TurnEvent(
            call_outcome=TE.CallOutcome(
                endpoint_name="get_national_holidays", success=True, http_status=200, summary="12 holidays"
            )
        ),
        token("Estonia has "),
        token("12 public "),
        token("holidays."),
        TE.TurnEvent(
            end=TE.End(outcome=TE.TURN_OUTCOME_ANSWERED, workflow=TE.WORKFLOW_API_TOOL_CALLING, llm_calls=2)
        ),
    ],
}


@dataclass
class ClassifierStandIn(classifier_pb2_grpc.ClassifierServiceServicer):
    turns: list[chat_pb2.ChatTurn] = field(default_factory=list)
    request_ids: list[str] = field(default_factory=list)
    streaming: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)

    async def RouteTurn(self, request, context):  # type: ignore[no-untyped-def]
        self.turns.append(request.turn)
        self.request_ids += [v for k, v in context.invocation_metadata() if k == "x-request-id"]
        message = request.turn.message
        if message == "reject":
            await abort_with(context, InvalidArgument("message is too long", field="turn.message"))
        if message == "not-yours":
            await abort_with(
                context,
                PermissionDenied("the chat's session belongs to another owner", reason="OWNED_BY_ANOTHER"),
            )
        if message == "down":
            await abort_with(context, Unavailable("loop_svc is unreachable"))
        if message == "hang":
            try:
                yield classifier_pb2.RouteTurnResponse(
                    event=TE.TurnEvent(progress=TE.Progress(stage="hanging"))
                )
                self.streaming.set()
                await asyncio.Event().wait()
            finally:
                self.cancelled.set()
        if message == "break":
            yield classifier_pb2.RouteTurnResponse(event=token("partial "))
            await abort_with(context, Unavailable("caller_svc went away"))
        for event in SCRIPTS.get(message, SCRIPTS["Estonia"]):
            yield classifier_pb2.RouteTurnResponse(event=event)

    async def Classify(self, request, context):  # type: ignore[no-untyped-def]
        return classifier_pb2.ClassifyResponse(
            classification=classifier_pb2.Classification(workflow=TE.WORKFLOW_RAG, confidence=0.5)
        )


@dataclass
class IndexerStandIn(indexer_pb2_grpc.IndexerServiceServicer):
    endpoints: dict[str, catalogue_pb2.Endpoint] = field(default_factory=dict)

    async def IndexEndpoint(self, request, context):  # type: ignore[no-untyped-def]
        endpoint = request.endpoint
        if not endpoint.url.startswith(("http://", "https://")):
            await abort_with(
                context, InvalidArgument("url must be an absolute http(s) URL", field="endpoint.url")
            )
        replaced = endpoint.endpoint_id in self.endpoints
        stored = catalogue_pb2.Endpoint()
        stored.CopyFrom(endpoint)
        stored.enriched_context = f"{endpoint.name}: {endpoint.description}"
        self.endpoints[endpoint.endpoint_id] = stored
        return indexer_pb2.IndexEndpointResponse(endpoint=stored, replaced=replaced, embed_text=endpoint.name)

    async def ListEndpoints(self, request, context):  # type: ignore[no-untyped-def]
        return indexer_pb2.ListEndpointsResponse(endpoints=list(self.endpoints.values()))

    async def GetEndpoint(self, request, context):  # type: ignore[no-untyped-def]
        if request.endpoint_id not in self.endpoints:
            await abort_with(context, NotFound(f"no endpoint {request.endpoint_id}"))
        return indexer_pb2.GetEndpointResponse(endpoint=self.endpoints[request.endpoint_id])

    async def DeleteEndpoint(self, request, context):  # type: ignore[no-untyped-def]
        return indexer_pb2.DeleteEndpointResponse(
            deleted=self.endpoints.pop(request.endpoint_id, None) is not None
        )


@dataclass
class Mesh:
    classifier: ClassifierStandIn
    indexer: IndexerStandIn
    server: GrpcServer


@pytest.fixture()
async def mesh() -> AsyncIterator[Mesh]:
    classifier, indexer = ClassifierStandIn(), IndexerStandIn()
    server = GrpcServer(
        [
            ServiceMount.of(
                classifier_pb2,
                "ClassifierService",
                classifier_pb2_grpc.add_ClassifierServiceServicer_to_server,
                classifier,
            ),
            ServiceMount.of(
                indexer_pb2, "IndexerService", indexer_pb2_grpc.add_IndexerServiceServicer_to_server, indexer
            ),
        ],
        port=0,
        grace_seconds=0.5,
    )
    await server.start()
    try:
        yield Mesh(classifier, indexer, server)
    finally:
        await server.stop(0.5)


ADMIN_TOKEN = "test-admin-token"


@pytest.fixture()
def edge_settings() -> EdgeSettings:
    return EdgeSettings(request_timeout_seconds=30, admin_token=ADMIN_TOKEN)


@pytest.fixture()
async def edge_apps(mesh: Mesh, edge_settings: EdgeSettings) -> AsyncIterator[EdgeApps]:
    classifier = ClassifierClient(open_channel(mesh.server.address))
    indexer = IndexerClient(open_channel(mesh.server.address))
    try:
        yield create_apps(edge_settings, classifier, indexer)
    finally:
        await classifier.close()
        await indexer.close()


@pytest.fixture()
def edge_app(edge_apps: EdgeApps):  # type: ignore[no-untyped-def]
    return edge_apps.public


@pytest.fixture()
async def http(edge_app) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    transport = httpx.ASGITransport(app=edge_app)
    # Every POST to the edge is JSON (edge_svc/csrf.py refuses other media types).
    headers = {"content-type": "application/json"}
    async with httpx.AsyncClient(transport=transport, base_url="http://edge", headers=headers) as client:
        yield client


@pytest.fixture()
async def admin_http(edge_apps: EdgeApps) -> AsyncIterator[httpx.AsyncClient]:
    """The admin listener's app, with the admin token."""
    assert edge_apps.admin is not None
    transport = httpx.ASGITransport(app=edge_apps.admin)
    headers = {"authorization": f"Bearer {ADMIN_TOKEN}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://admin", headers=headers) as client:
        yield client


@pytest.fixture()
def scripts() -> dict[str, list[TE.TurnEvent]]:
    return SCRIPTS
