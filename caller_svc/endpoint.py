"""What the caller needs to know about an endpoint (domain twin of atc.common.v1.Endpoint)."""

from __future__ import annotations

from dataclasses import dataclass, field

from caller_svc.labels import NO_LABELS, LabelBook


@dataclass(frozen=True)
class ParamSpec:
    name: str
    # string, date, datetime, integer, number or boolean
    type: str = "string"
    required: bool = False
    description: str = ""


@dataclass(frozen=True)
class EndpointSpec:
    name: str
    method: str
    url: str
    params: tuple[ParamSpec, ...] = field(default_factory=tuple)
    description: str = ""
    # "service": a Bürokratt service, POSTed {chatId, authorId, input: [values in param order]}.
    kind: str = "endpoint"
    # Catalogue id; CallEndpoint only calls endpoints found under it in the catalogue.
    endpoint_id: str = ""
    labels: LabelBook = NO_LABELS


SERVICE_KIND = "service"
