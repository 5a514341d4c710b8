"""Per-request load balancing: two replicas of loop_svc behind one name (a DNS name with
two addresses, as a headless Kubernetes Service resolves to one per pod) both receive
traffic through one channel from services.runtime.channels — gRPC's default pick_first
would send every call to the first. And every server ends old connections (max
connection age), so a channel resolves the name again and finds replicas added since."""

from __future__ import annotations

import contextlib
import re

import grpc

from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from devtools.redis_server import EmbeddedRedis, free_port
from loop_svc.app import build_server as build_loop
from loop_svc.settings import LoopSettings
from services.runtime.channels import open_channel
from services.runtime.server import GrpcServer
from tests.cluster.dns import DnsResponder

CALLS = 40


def served(server: GrpcServer, method: str) -> int:
    pattern = rf'atc_rpc_requests_total\{{[^}}]*method="[^"]*/{method}"[^}}]*\}} (\d+(?:\.\d+)?)'
    return int(sum(float(n) for n in re.findall(pattern, server.telemetry.metrics_text().decode())))


async def test_two_replicas_behind_one_name_both_take_calls() -> None:
    port = free_port()
    with EmbeddedRedis() as redis:
        async with contextlib.AsyncExitStack() as stack:
            replicas = []
            # Two "pods": the same port on two addresses, as a Deployment's pods are.
            for host in ("127.0.0.1", "127.0.0.2"):
                settings = LoopSettings(
                    host=host, port=port, redis_url=redis.url, caller_target="127.0.0.1:1"
                )
                server = await build_loop(settings)
                await server.start()
                stack.push_async_callback(server.stop, 0)
                replicas.append(server)
            dns = await stack.enter_async_context(DnsResponder({"atc-loop": ["127.0.0.1", "127.0.0.2"]}))
            channel = open_channel(f"dns://127.0.0.1:{dns.port}/atc-loop:{port}")
            stack.push_async_callback(channel.close, None)
            stub = loop_pb2_grpc.LoopServiceStub(channel)
            for i in range(CALLS):
                try:
                    await stub.GetSession(loop_pb2.GetSessionRequest(chat_id=f"lb-{i}"), timeout=30)
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED)
            counts = [served(replica, "GetSession") for replica in replicas]
    assert sum(counts) == CALLS, counts
    # Round robin over both: each replica takes its share, not one of them all of it.
    assert min(counts) >= CALLS // 4, counts


def test_every_service_ends_old_connections_so_clients_re_resolve() -> None:
    settings = LoopSettings()
    assert 0 < settings.max_connection_age_seconds
    # An ageing connection never cuts a turn in flight (the edge's turn deadline is 120 s).
    assert settings.max_connection_age_grace_seconds > 120
