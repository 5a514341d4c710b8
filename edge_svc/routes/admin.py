"""Operator routes for the endpoint catalogue, served only on the admin listener
(edge_svc/app.py) behind the admin token.

POST takes the design documents' endpoint indexing body as-is (camelCase JSON
of atc.common.v1.Endpoint) and forwards it to IndexerService/IndexEndpoint.
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import json_format
from starlette.requests import Request
from starlette.responses import Response

from atc.common.v1 import catalogue_pb2
from edge_svc.limits import BodyRejected, JsonLimits
from edge_svc.routes.common import (
    bad_request,
    json_object,
    json_response,
    mesh_error_response,
    rejected_body,
    request_id_for,
)
from edge_svc.upstream import Upstream
from services.errors import MeshError, NotFound

_UNKNOWN_FIELD = re.compile(r'has no field named "(?P<name>[^"]+)" at "(?P<path>[^"]+)"')
_FAILED_AT = re.compile(r" at (?P<path>[A-Za-z_][\w.\[\]]*?)\.*$")
_FAILED_FIELD = re.compile(r"^Failed to parse (?P<name>\w+) field")
_ROOT = "Endpoint"


def parse_error_field(message: str) -> str | None:
    """The body field a protobuf JSON ParseError is about, as a dotted path."""
    unknown = _UNKNOWN_FIELD.search(message)
    if unknown:
        parent = unknown["path"].removeprefix(_ROOT).lstrip(".")
        return f"{parent}.{unknown['name']}" if parent else unknown["name"]
    located = _FAILED_AT.search(message.split("\n")[0])
    if located and located["path"].startswith(_ROOT + "."):
        return located["path"].removeprefix(_ROOT + ".")
    named = _FAILED_FIELD.match(message)
    return named["name"] if named else None


def _to_dict(message: Any) -> dict[str, Any]:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


class AdminRoutes:
    def __init__(self, upstream: Upstream, *, timeout: float, json_limits: JsonLimits) -> None:
        self._upstream = upstream
        self._timeout = timeout
        self._json_limits = json_limits

    async def index_endpoint(self, request: Request) -> Response:
        request_id = request_id_for(request)
        try:
            body = await json_object(request, self._json_limits)
            endpoint = json_format.ParseDict(body, catalogue_pb2.Endpoint())
        except BodyRejected as exc:
            return rejected_body(exc, request_id)
        except json_format.ParseError as exc:
            return bad_request(str(exc).split("\n")[0], request_id, field=parse_error_field(str(exc)))
        skip = request.query_params.get("skipEnrichment", "").lower() in ("1", "true", "yes")
        try:
            response = await self._upstream.indexer.index_endpoint(
                endpoint, skip_enrichment=skip, timeout=self._timeout, request_id=request_id
            )
        except MeshError as exc:
            return mesh_error_response(exc, request_id)
        return json_response(_to_dict(response), request_id, 200 if response.replaced else 201)

    async def list_endpoints(self, request: Request) -> Response:
        request_id = request_id_for(request)
        params = request.query_params
        try:
            page_size = int(params.get("pageSize", "0"))
        except ValueError:
            return bad_request("pageSize must be an integer", request_id, field="pageSize")
        try:
            response = await self._upstream.indexer.list_endpoints(
                service_id=params.get("serviceId", ""),
                page_size=page_size,
                page_token=params.get("pageToken", ""),
                timeout=self._timeout,
                request_id=request_id,
            )
        except MeshError as exc:
            return mesh_error_response(exc, request_id)
        return json_response(_to_dict(response), request_id)

    async def get_endpoint(self, request: Request) -> Response:
        request_id = request_id_for(request)
        endpoint_id = request.path_params["endpoint_id"]
        try:
            endpoint = await self._upstream.indexer.get_endpoint(
                endpoint_id, timeout=self._timeout, request_id=request_id
            )
        except MeshError as exc:
            return mesh_error_response(exc, request_id)
        return json_response({"endpoint": _to_dict(endpoint)}, request_id)

    async def delete_endpoint(self, request: Request) -> Response:
        request_id = request_id_for(request)
        endpoint_id = request.path_params["endpoint_id"]
        try:
            deleted = await self._upstream.indexer.delete_endpoint(
                endpoint_id, timeout=self._timeout, request_id=request_id
            )
            if not deleted:
                raise NotFound(f"endpoint {endpoint_id} is not in the catalogue")
        except MeshError as exc:
            return mesh_error_response(exc, request_id)
        return json_response({"deleted": True, "endpointId": endpoint_id}, request_id)
