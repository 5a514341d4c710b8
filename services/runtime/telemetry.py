"""Traces and metrics of one process: an OpenTelemetry tracer (OTLP export when an endpoint
is configured, off by default) and a Prometheus registry with the RED metrics of every RPC.

Each service builds one `Telemetry` and hands it to the server builder; nothing here is a
module-level singleton, so several services can share a process (tests, `atc up --inprocess`)
without mixing their metrics.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Protocol

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

log = logging.getLogger("atc.telemetry")

TRACEPARENT_HEADER = "traceparent"
_PROPAGATOR = TraceContextTextMapPropagator()
# Turns take tens of milliseconds to seconds; LLM-backed ones up to a minute.
_DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class TelemetryOptions(Protocol):
    """The settings fields telemetry reads (every ServiceSettings has them)."""

    otlp_endpoint: str


class DomainMetrics(Protocol):
    """The port domain code counts through (cache hits, breaker transitions, ...)."""

    def increment(self, name: str, amount: float = 1.0, **labels: str) -> None: ...


class NoMetrics:
    def increment(self, name: str, amount: float = 1.0, **labels: str) -> None:
        return None


AttributeValue = str | bool | int | float


class SpanHandle(Protocol):
    """What domain code may do with an open span: record what it decided."""

    def set_attribute(self, key: str, value: AttributeValue) -> None: ...


class DomainTelemetry(DomainMetrics, Protocol):
    """The port domain code reports through: counters and spans around its steps
    (a layer decision, a search, an LLM call, an API call). Domain modules get this
    Protocol from their constructor (app.py wires the service's Telemetry), never the
    OpenTelemetry API."""

    def span(self, name: str, **attributes: AttributeValue) -> AbstractContextManager[SpanHandle]: ...


class _NoSpan:
    def set_attribute(self, key: str, value: AttributeValue) -> None:
        return None


class NoTelemetry(NoMetrics):
    """Counts and traces nothing: the default where no telemetry is wired."""

    @contextlib.contextmanager
    def span(self, name: str, **attributes: AttributeValue) -> Iterator[SpanHandle]:
        yield _NoSpan()


def extract_trace_context(carrier: Mapping[str, str]) -> Context:
    """The caller's trace (a W3C `traceparent`) as an OpenTelemetry parent context."""
    return _PROPAGATOR.extract(dict(carrier))


def inject_trace_context(carrier: dict[str, str]) -> None:
    """Adds the current span's `traceparent` to outgoing headers or metadata."""
    _PROPAGATOR.inject(carrier)


def current_trace_id() -> str:
    span_context = trace.get_current_span().get_span_context()
    return format(span_context.trace_id, "032x") if span_context.is_valid else ""


class Telemetry:
    def __init__(
        self,
        service: str,
        *,
        otlp_endpoint: str = "",
        span_exporter: SpanExporter | None = None,
    ) -> None:
        self.service = service
        self.registry = CollectorRegistry()
        self._provider = TracerProvider(resource=Resource.create({"service.name": service}))
        if span_exporter is not None:
            # Tests hand in an in-memory exporter: export each span as it ends.
            self._provider.add_span_processor(SimpleSpanProcessor(span_exporter))
        if otlp_endpoint:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

            self._provider.add_span_processor(
                BatchSpanProcessor(OTLPSpanExporter(endpoint=otlp_endpoint, insecure=True))
            )
        self.tracer = self._provider.get_tracer("atc.mesh")
        labels = ["service", "method"]
        self.rpc_requests = Counter(
            "atc_rpc_requests", "RPCs served, by final status code", [*labels, "code"], registry=self.registry
        )
        self.rpc_duration = Histogram(
            "atc_rpc_duration_seconds",
            "RPC duration until the last message",
            labels,
            buckets=_DURATION_BUCKETS,
            registry=self.registry,
        )
        self.rpc_in_flight = Gauge(
            "atc_rpc_in_flight", "RPCs being served now", labels, registry=self.registry
        )
        self.rpc_rejected = Counter(
            "atc_rpc_rejected", "RPCs refused at the concurrency limit", labels, registry=self.registry
        )
        self._domain: dict[str, tuple[Counter, tuple[str, ...]]] = {}

    @classmethod
    def from_settings(cls, service: str, options: TelemetryOptions | None) -> Telemetry:
        return cls(service, otlp_endpoint=options.otlp_endpoint if options is not None else "")

    def observe_rpc(self, method: str, code: str, seconds: float) -> None:
        self.rpc_requests.labels(self.service, method, code).inc()
        self.rpc_duration.labels(self.service, method).observe(seconds)

    def increment(self, name: str, amount: float = 1.0, **labels: str) -> None:
        """A domain counter `atc_<name>_total`; its label names are fixed by its first use."""
        known = self._domain.get(name)
        if known is None:
            names = ("service", *sorted(labels))
            known = (Counter(f"atc_{name}", f"{name} (domain counter)", names, registry=self.registry), names)
            self._domain[name] = known
        counter, names = known
        if set(names[1:]) != set(labels):
            log.warning("metric %s expects labels %s, got %s", name, names[1:], sorted(labels))
            return
        counter.labels(self.service, *(labels[n] for n in names[1:])).inc(amount)

    @contextlib.contextmanager
    def span(self, name: str, **attributes: AttributeValue) -> Iterator[SpanHandle]:
        """A child span of the current one (the RPC's), named `name`; an exception that
        leaves it is recorded on it."""
        with self.tracer.start_as_current_span(name, attributes=attributes) as span:
            yield span

    def metrics_text(self) -> bytes:
        return generate_latest(self.registry)

    def shutdown(self) -> None:
        self._provider.shutdown()
