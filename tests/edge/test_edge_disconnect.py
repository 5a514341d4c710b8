"""A browser that goes away cancels the upstream gRPC call (real uvicorn, real sockets)."""

from __future__ import annotations

import asyncio
import json

import httpx
import uvicorn

from services.runtime.listen import bind_socket


async def test_client_disconnect_cancels_the_upstream_call(edge_app, mesh) -> None:
    # A socket already listening: connections wait in its backlog until uvicorn accepts.
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(edge_app, lifespan="off", log_level="warning"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            async with client.stream(
                "POST", "/v1/orchestrate/stream", json={"chatId": "c", "message": "hang"}
            ) as r:
                assert r.status_code == 200
                lines = r.aiter_lines()
                async for line in lines:
                    if line.startswith("data: "):
                        assert json.loads(line[6:])["type"] == "progress"
                        break
                await asyncio.wait_for(mesh.classifier.streaming.wait(), 10)
                assert not mesh.classifier.cancelled.is_set()
            # Leaving the block closes the connection mid-stream.
        # Times out (and fails) unless the upstream call was cancelled.
        await asyncio.wait_for(mesh.classifier.cancelled.wait(), 10)
    finally:
        server.should_exit = True
        await serving
        sock.close()


async def test_app_opens_its_channels_from_settings_when_served(mesh) -> None:
    from edge_svc.app import create_app
    from edge_svc.settings import EdgeSettings

    settings = EdgeSettings(classifier_target=mesh.server.address, indexer_target=mesh.server.address)
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(create_app(settings), lifespan="on", log_level="warning"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{sock.getsockname()[1]}", timeout=10
        ) as client:
            assert (await client.get("/readyz")).json()["classifier"] == "SERVING"
            reply = await client.post("/v1/orchestrate", json={"chatId": "c", "message": "Estonia"})
            assert reply.json()["content"] == "Estonia has 12 public holidays."
    finally:
        server.should_exit = True
        await serving
        sock.close()
