"""Catalogue entries as every hop sees them: a registered service (a Bürokratt-style
POST with the citizen's entities) is called like an endpoint of type `service`."""

from __future__ import annotations

from atc.common.v1 import catalogue_pb2

SERVICE_TYPE = "service"


def service_as_endpoint(service: catalogue_pb2.Service) -> catalogue_pb2.Endpoint:
    return catalogue_pb2.Endpoint(
        endpoint_id=service.service_id,
        service_id=service.service_id,
        name=service.name,
        description=service.description,
        method="POST",
        url=service.url,
        type=SERVICE_TYPE,
        params=service.params,
        enriched_context=service.enriched_context,
        examples=service.examples,
        # A service's answer is about the user's own case: never served from a cache.
        cacheable=False,
    )
