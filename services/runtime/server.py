"""grpc.aio server bootstrap shared by every service.

Each server carries the standard health service (per service name and overall)
and server reflection (so `buf curl` and grpcurl can list and call it). SIGTERM
or SIGINT flips health to NOT_SERVING, then stops with a grace period so
in-flight streams can finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from services.logging_setup import configure_logging
from services.runtime.backpressure import ConcurrencyLimit
from services.runtime.channels import MAX_MESSAGE_BYTES
from services.runtime.interceptors import RpcObservingInterceptor
from services.runtime.metrics_server import MetricsServer
from services.runtime.telemetry import Telemetry
from services.runtime.trust import TlsFiles

log = logging.getLogger("atc.server")


@dataclass(frozen=True)
class ServiceMount:
    """One gRPC service to put on the server: its full name and how to add it."""

    full_name: str
    register: Callable[[grpc.aio.Server], None]

    @classmethod
    def of(
        cls,
        pb2: ModuleType,
        service: str,
        add_to_server: Callable[[Any, grpc.aio.Server], None],
        servicer: object,
    ) -> ServiceMount:
        """`ServiceMount.of(loop_pb2, "LoopService", add_LoopServiceServicer_to_server, servicer)`."""
        full_name: str = pb2.DESCRIPTOR.services_by_name[service].full_name
        return cls(full_name, lambda server: add_to_server(servicer, server))


class PortInUseError(RuntimeError):
    pass


# Answers "can this service do its work now?" (its Redis answers, say); an exception is "no".
ReadinessProbe = Callable[[], Awaitable[bool]]


class RuntimeOptions(Protocol):
    """What the server reads from a service's settings (ServiceSettings has it all)."""

    metrics_port: int | None
    otlp_endpoint: str
    max_concurrent_rpcs: int
    overload_retry_after_seconds: float


class ServerSettings(RuntimeOptions, Protocol):
    """A service's own settings (services.settings.ServiceSettings): where it listens too."""

    host: str
    port: int
    grace_seconds: float
    log_level: str
    max_connection_age_seconds: float
    max_connection_age_grace_seconds: float


class GrpcServer:
    def __init__(
        self,
        mounts: Sequence[ServiceMount],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        grace_seconds: float = 5.0,
        on_shutdown: Sequence[Callable[[], Awaitable[None]]] = (),
        runtime: RuntimeOptions | None = None,
        telemetry: Telemetry | None = None,
        readiness: Sequence[ReadinessProbe] = (),
        readiness_interval_seconds: float = 2.0,
        max_connection_age_seconds: float = 0.0,
        max_connection_age_grace_seconds: float = 0.0,
    ) -> None:
        self._mounts = list(mounts)
        self._host = host
        self._requested_port = port
        self._grace = grace_seconds
        self._on_shutdown = list(on_shutdown)
        self._health = health_aio.HealthServicer()
        service = _short_name(self._mounts[0].full_name) if self._mounts else "atc"
        self.telemetry = telemetry or Telemetry.from_settings(service, runtime)
        self.limit = ConcurrencyLimit.from_settings(runtime)
        self._metrics = (
            MetricsServer(self.telemetry.metrics_text, host=host, port=runtime.metrics_port)
            if runtime is not None and runtime.metrics_port is not None
            else None
        )
        # so_reuseport off: a second process on a taken port must fail, not share it.
        # Message sizes match the channels' (services.runtime.channels), explicitly.
        options: list[tuple[str, int]] = [
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
        if max_connection_age_seconds > 0:
            # Clients re-resolve when a connection ends (see ServiceSettings).
            options += [
                ("grpc.max_connection_age_ms", int(max_connection_age_seconds * 1000)),
                ("grpc.max_connection_age_grace_ms", int(max_connection_age_grace_seconds * 1000)),
            ]
        self._server = grpc.aio.server(
            interceptors=[RpcObservingInterceptor(self.telemetry, self.limit)], options=options
        )
        self._port: int | None = None
        self._stopping = False
        self._readiness = list(readiness)
        self._readiness_interval = readiness_interval_seconds
        self._readiness_task: asyncio.Task[None] | None = None
        self.ready = True

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("server not started")
        return self._port

    @property
    def address(self) -> str:
        return f"{self._host}:{self.port}"

    @property
    def metrics_port(self) -> int | None:
        return self._metrics.port if self._metrics is not None else None

    @property
    def service_names(self) -> list[str]:
        return [m.full_name for m in self._mounts]

    async def start(self) -> int:
        for mount in self._mounts:
            mount.register(self._server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._server)
        reflection.enable_server_reflection(
            (
                *self.service_names,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self._server,
        )
        try:
            address = f"{self._host}:{self._requested_port}"
            # mTLS when the mesh's certificate files are set (services.runtime.trust).
            tls = TlsFiles.from_env()
            if tls is not None:
                port = self._server.add_secure_port(address, tls.server_credentials())
            else:
                port = self._server.add_insecure_port(address)
        except RuntimeError as exc:
            raise PortInUseError(
                f"cannot listen on {self._host}:{self._requested_port}: the port is taken or not allowed"
            ) from exc
        if port == 0:
            raise PortInUseError(f"cannot listen on {self._host}:{self._requested_port}: the port is taken")
        self._port = port
        if self._metrics is not None:
            await self._metrics.start()
        await self._server.start()
        for name in ("", *self.service_names):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if self._readiness:
            await self._check_readiness()
            self._readiness_task = asyncio.create_task(self._watch_readiness())
        log.info("serving %s on %s", ", ".join(self.service_names), self.address)
        return port

    async def _check_readiness(self) -> None:
        """Each service's health follows its probes (the overall "" stays SERVING while
        the process lives): a balancer stops sending work the service cannot do."""
        ready = True
        for probe in self._readiness:
            try:
                ready = bool(await asyncio.wait_for(probe(), timeout=max(0.5, self._readiness_interval)))
            except Exception as exc:  # a failing probe is "not ready", whatever it raised
                log.debug("readiness probe failed: %r", exc)
                ready = False
            if not ready:
                break
        if ready != self.ready:
            log.warning("%s: %s", ", ".join(self.service_names), "ready again" if ready else "NOT ready")
        self.ready = ready
        status = (
            health_pb2.HealthCheckResponse.SERVING if ready else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        for name in self.service_names:
            await self._health.set(name, status)

    async def _watch_readiness(self) -> None:
        while True:
            await asyncio.sleep(self._readiness_interval)
            await self._check_readiness()

    async def stop(self, grace: float | None = None) -> None:
        """NOT_SERVING first (so balancers drain), then stop with a grace period."""
        if self._stopping:
            return
        self._stopping = True
        if self._readiness_task is not None:
            self._readiness_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._readiness_task
        await self._health.enter_graceful_shutdown()
        await self._server.stop(self._grace if grace is None else grace)
        for hook in self._on_shutdown:
            try:
                await hook()
            except Exception:  # a failing hook must not keep the others from running
                log.exception("shutdown hook failed")
        if self._metrics is not None:
            await self._metrics.stop()
        self.telemetry.shutdown()
        log.info("stopped %s", ", ".join(self.service_names))

    async def wait_for_termination(self) -> None:
        await self._server.wait_for_termination()


def _short_name(full_name: str) -> str:
    """`atc.loop.v1.LoopService` → `loop`: the service label of its metrics and traces."""
    parts = full_name.split(".")
    return parts[1] if len(parts) > 2 else full_name


async def serve_until_signal(
    server: GrpcServer, *, ready: Callable[[GrpcServer], None] | None = None
) -> None:
    """Start `server` and run until SIGTERM/SIGINT, then stop it gracefully."""
    await server.start()
    if ready is not None:
        ready(server)
    stop_requested = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop_requested.set)
    try:
        await stop_requested.wait()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await server.stop()


def service_server(
    settings: ServerSettings,
    *mounts: ServiceMount,
    telemetry: Telemetry | None = None,
    on_shutdown: Sequence[Callable[[], Awaitable[None]]] = (),
    readiness: Sequence[ReadinessProbe] = (),
) -> GrpcServer:
    """The one way a service's app builds its server: address, grace period, metrics,
    traces and concurrency limit all from its settings (`telemetry`: the one the app
    already made for its domain counters, else one from the settings)."""
    return GrpcServer(
        mounts,
        host=settings.host,
        port=settings.port,
        grace_seconds=settings.grace_seconds,
        runtime=settings,
        telemetry=telemetry,
        on_shutdown=on_shutdown,
        readiness=readiness,
        max_connection_age_seconds=settings.max_connection_age_seconds,
        max_connection_age_grace_seconds=settings.max_connection_age_grace_seconds,
    )


SettingsT = TypeVar("SettingsT", bound=ServerSettings)


def run_service(
    service: str, settings: SettingsT, build: Callable[[SettingsT], Awaitable[GrpcServer]]
) -> None:
    """What every service's `__main__` does: JSON logs named `service`, build the server
    from `settings`, serve until SIGTERM/SIGINT, then stop gracefully."""
    configure_logging(settings.log_level, service)

    async def main() -> None:
        server = await build(settings)
        await serve_until_signal(server, ready=lambda s: log.info("%s ready on %s", service, s.address))

    asyncio.run(main())
