"""Channels to other services, and deadlines passed downstream."""

from __future__ import annotations

import grpc

from services.runtime.interceptors import client_interceptors
from services.runtime.owner import owner_client_interceptors

# Large catalogues and stored results travel over these channels. Servers
# (services.runtime.server) accept the same size, so a message either passes every
# hop or fails at the first one with RESOURCE_EXHAUSTED naming the limit.
MAX_MESSAGE_BYTES = 32 * 1024 * 1024


def channel_options(max_message_bytes: int = MAX_MESSAGE_BYTES) -> list[tuple[str, int | str]]:
    return [
        # Per-request balancing over every address the name resolves to (a headless Service:
        # one per pod). gRPC's default, pick_first, pins a channel to one pod, so pods an
        # autoscaler adds would take no load from existing clients.
        ("grpc.lb_policy_name", "round_robin"),
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.keepalive_time_ms", 30_000),
        # gRPC's default backoff grows to 2 minutes: a restarted downstream (the indexer
        # after a crash) would stay unreachable that long. Capped, it is found in seconds.
        ("grpc.max_reconnect_backoff_ms", 5_000),
    ]


def open_channel(target: str, *, max_message_bytes: int = MAX_MESSAGE_BYTES) -> grpc.aio.Channel:
    """An insecure aio channel (the mesh runs behind Envoy / in-cluster) that
    forwards the current request id and owner."""
    return grpc.aio.insecure_channel(
        target,
        options=channel_options(max_message_bytes),
        interceptors=[*client_interceptors(), *owner_client_interceptors()],
    )


RESERVE_SHARE = 0.2


def downstream_timeout(
    context: grpc.aio.ServicerContext | None, default: float, *, reserve: float = 0.0
) -> float:
    """Seconds a downstream call may take: what is left of the incoming deadline,
    less `reserve` (the time this hop still needs to answer afterwards), or
    `default` when the caller set none. A hop that reserves time keeps at least
    RESERVE_SHARE of the remaining deadline: a fixed margin alone is too thin on a
    loaded machine, where storing and streaming the answer slows down too."""
    if context is not None:
        remaining = context.time_remaining()
        if remaining is not None:
            left = float(remaining)
            kept = max(reserve, left * RESERVE_SHARE) if reserve > 0 else 0.0
            return max(0.001, left - kept)
    return default
