"""`POST /v1/identity`: the chat page's identity before its first turn (see
`IdentityResolver.for_page`). The answer says what kind of owner the caller acts as;
a new anonymous identity comes back as the HttpOnly cookie and `X-Chat-Token`."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from edge_svc.identity import identity_of
from edge_svc.routes.common import json_response, mesh_error_response, request_id_for
from services.errors import MeshError


class IdentityRoutes:
    async def ensure(self, request: Request) -> Response:
        request_id = request_id_for(request)
        identity = identity_of(request)
        try:
            binding = identity.for_page(request)
        except MeshError as exc:
            return mesh_error_response(exc, request_id)
        response = json_response(
            {"kind": binding.owner.kind, "issued": binding.issued_token is not None}, request_id
        )
        identity.attach(response, binding)
        return response
