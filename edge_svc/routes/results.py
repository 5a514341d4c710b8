"""`GET /v1/results/{id}`: a stored API result, for its owner only.

The owner comes from `request_owner`: the verified identity of the request (a
signed-in user's bearer JWT or the chat token the edge issued), never a claim in
the query, a header or a body.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import grpc
from starlette.requests import Request
from starlette.responses import Response

from edge_svc.identity import identity_of
from edge_svc.models import error_body
from edge_svc.routes.common import json_response, mesh_error_response, request_id_for
from services.clients import CallerClient
from services.errors import MeshError
from services.runtime.channels import open_channel


def request_owner(request: Request) -> str:
    """Who is asking, verified; "" when the request carries no credential. Raises
    Unauthenticated for a credential that does not verify."""
    owner = identity_of(request).resolve(request)
    return owner.owner_id if owner is not None else ""


class CallerResults:
    """CallerService/GetResult over a channel opened on first use (inside the app's loop)."""

    def __init__(self, target: str) -> None:
        self._target = target
        self._channel: grpc.aio.Channel | None = None

    async def get(self, result_id: str, owner_id: str, *, timeout: float, request_id: str) -> Any:
        if self._channel is None:
            self._channel = open_channel(self._target)
        response = await CallerClient(self._channel).get_result(
            result_id, owner_id=owner_id, timeout=timeout, request_id=request_id
        )
        return response.result

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close(None)
            self._channel = None


class ResultRoutes:
    def __init__(
        self,
        results: CallerResults,
        *,
        timeout: float,
        owner_of: Callable[[Request], str] = request_owner,
    ) -> None:
        self._results = results
        self._timeout = timeout
        self._owner_of = owner_of

    async def get_result(self, request: Request) -> Response:
        request_id = request_id_for(request)
        result_id = request.path_params["result_id"]
        try:
            owner = self._owner_of(request)
        except MeshError as error:
            return mesh_error_response(error, request_id)
        if not owner:
            body = error_body("Sign in to read stored results.", reason="OWNER_REQUIRED")
            return json_response(body, request_id, 401)
        try:
            uuid.UUID(result_id)
        except ValueError:
            body = error_body("result id must be a UUID", field="result_id", reason="INVALID_ARGUMENT")
            return json_response(body, request_id, 400)
        try:
            stored = await self._results.get(result_id, owner, timeout=self._timeout, request_id=request_id)
        except MeshError as error:
            return mesh_error_response(error, request_id)
        return json_response(
            {
                "resultId": stored.result_id,
                "endpointName": stored.endpoint_name,
                "question": stored.question,
                "query": json.loads(stored.query_json) if stored.query_json else {},
                "summary": stored.summary,
                "response": json.loads(stored.response_json) if stored.response_json else None,
                "generatedAt": stored.generated_at,
            },
            request_id,
        )
