"""Every service answers the standard health and reflection services, and bad
input gets a clear error that names the field, with nothing stored."""

from __future__ import annotations

import uuid

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import chat_pb2
from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from services.runtime.status import error_info_from_call
from tests.e2e.conftest import Mesh

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVICES = {
    "indexer": "atc.indexer.v1.IndexerService",
    "classifier": "atc.classifier.v1.ClassifierService",
    "loop": "atc.loop.v1.LoopService",
    "caller": "atc.caller.v1.CallerService",
}


@pytest.mark.parametrize("name", sorted(SERVICES))
async def test_health_and_reflection(mesh: Mesh, name: str) -> None:
    async with grpc.aio.insecure_channel(mesh.address(name)) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", SERVICES[name]):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = reflection.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        listed = [s.name async for r in responses for s in r.list_services_response.service]
        assert SERVICES[name] in listed
        assert "grpc.health.v1.Health" in listed


async def test_empty_message_is_rejected_with_the_field_named(mesh: Mesh) -> None:
    async with httpx.AsyncClient(base_url=mesh.edge_url) as edge:
        reply = await edge.post("/v1/orchestrate/stream", json={"chatId": "c", "message": "  "})
        assert reply.status_code == 400
        assert reply.json()["error"]["field"] == "message"
        reply = await edge.post("/v1/orchestrate", json={"chatId": "c", "message": "hi", "colour": "red"})
        assert reply.status_code == 400
        assert reply.json()["error"]["field"] == "colour"
    async with grpc.aio.insecure_channel(mesh.address("classifier")) as channel:
        call = classifier_pb2_grpc.ClassifierServiceStub(channel).Classify(
            classifier_pb2.ClassifyRequest(turn=chat_pb2.ChatTurn(chat_id="c", message=""))
        )
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await call
        assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        info = await error_info_from_call(call)
        assert info is not None and info.metadata["field"] == "turn.message"


async def test_invalid_endpoint_body_names_the_field_and_stores_nothing(mesh: Mesh) -> None:
    async with grpc.aio.insecure_channel(mesh.address("indexer")) as channel:
        indexer = indexer_pb2_grpc.IndexerServiceStub(channel)
        before = await indexer.ListEndpoints(indexer_pb2.ListEndpointsRequest(page_size=100))
    body = {
        "endpointId": str(uuid.uuid4()),
        "name": "get_weather",
        "description": "Weather forecast for a city.",
        "method": "FETCH",
        "url": "https://weather.example/forecast",
        "params": [{"name": "city", "type": "string", "required": True, "description": "City"}],
    }
    admin_headers = {"authorization": f"Bearer {mesh.admin_token}"}
    async with httpx.AsyncClient(base_url=mesh.admin_url, headers=admin_headers) as edge:
        reply = await edge.post("/v1/admin/endpoints", json=body)
        assert reply.status_code == 400, reply.text
        assert "method" in reply.json()["error"]["field"]
        body["method"], body["params"][0]["type"] = "GET", "colour"
        reply = await edge.post("/v1/admin/endpoints", json=body)
        assert reply.status_code == 400, reply.text
        assert reply.json()["error"]["field"].endswith("params[0].type")
    async with grpc.aio.insecure_channel(mesh.address("indexer")) as channel:
        after = await indexer_pb2_grpc.IndexerServiceStub(channel).ListEndpoints(
            indexer_pb2.ListEndpointsRequest(page_size=100)
        )
    assert [e.endpoint_id for e in after.endpoints] == [e.endpoint_id for e in before.endpoints]
