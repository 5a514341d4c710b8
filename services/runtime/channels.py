"""Channels to other services, and deadlines passed downstream."""

from __future__ import annotations

import json

import grpc

from services.runtime.interceptors import client_interceptors
from services.runtime.owner import owner_client_interceptors
from services.runtime.trust import TlsFiles

# Large catalogues and stored results travel over these channels. Servers
# (services.runtime.server) accept the same size, so a message either passes every
# hop or fails at the first one with RESOURCE_EXHAUSTED naming the limit.
MAX_MESSAGE_BYTES = 32 * 1024 * 1024


# Reads that change nothing, retried on UNAVAILABLE by the channel itself: a downstream that
# restarts (a pod rolled, a crashed process brought back) is reached again within the retry
# budget instead of failing the turn. Nothing that writes or streams is retried: RunTurn,
# ExecuteCalls and the Index*/Delete* calls fail once and say so.
IDEMPOTENT_READS: dict[str, tuple[str, ...]] = {
    "atc.indexer.v1.IndexerService": (
        "Search",
        "Embed",
        "GetEndpoint",
        "ListEndpoints",
        "GetService",
        "ListServices",
        "GetKnowledgeDocument",
        "ListKnowledgeDocuments",
    ),
    "atc.loop.v1.LoopService": ("GetSession", "DetectFollowUp", "ChatState"),
    "atc.caller.v1.CallerService": ("GetResult",),
    "atc.classifier.v1.ClassifierService": ("Classify",),
}
# 0.25 + 0.5 + 1 + 2 + 2 s of backoff (with gRPC's jitter): longer than the reconnect backoff
# cap below, so one more connection attempt to a restarted downstream always falls inside it.
_READ_RETRY = {
    "maxAttempts": 5,
    "initialBackoff": "0.25s",
    "maxBackoff": "2s",
    "backoffMultiplier": 2,
    "retryableStatusCodes": ["UNAVAILABLE"],
}


def service_config() -> str:
    methods = [
        {"service": service, "method": method}
        for service, names in IDEMPOTENT_READS.items()
        for method in names
    ]
    return json.dumps({"methodConfig": [{"name": methods, "retryPolicy": _READ_RETRY}]})


def channel_options(max_message_bytes: int = MAX_MESSAGE_BYTES) -> list[tuple[str, int | str]]:
    return [
        ("grpc.service_config", service_config()),
        ("grpc.enable_retries", 1),
        # Per-request balancing over every address the name resolves to (a headless Service:
        # one per pod). gRPC's default, pick_first, pins a channel to one pod, so pods an
        # autoscaler adds would take no load from existing clients.
        ("grpc.lb_policy_name", "round_robin"),
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.keepalive_time_ms", 30_000),
        # gRPC's default backoff grows to 2 minutes: a restarted downstream (the indexer
        # after a crash) would stay unreachable that long. Capped, it is found in seconds
        # (round_robin keeps reconnecting in the background; a read retries past the cap).
        ("grpc.max_reconnect_backoff_ms", 2_000),
    ]


def open_channel(target: str, *, max_message_bytes: int = MAX_MESSAGE_BYTES) -> grpc.aio.Channel:
    """An aio channel that forwards the current request id, owner and owner assertion:
    mTLS when the mesh's certificate files are configured (services.runtime.trust),
    plaintext otherwise (in-cluster, behind the network policies)."""
    interceptors = [*client_interceptors(), *owner_client_interceptors()]
    tls = TlsFiles.from_env()
    if tls is not None:
        return grpc.aio.secure_channel(
            target,
            tls.channel_credentials(),
            options=channel_options(max_message_bytes),
            interceptors=interceptors,
        )
    return grpc.aio.insecure_channel(
        target, options=channel_options(max_message_bytes), interceptors=interceptors
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
