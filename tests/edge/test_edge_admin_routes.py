"""Admin routes against a stand-in IndexerService (real gRPC server)."""

from __future__ import annotations

import httpx
import pytest

from edge_svc.app import create_apps
from edge_svc.routes.admin import parse_error_field
from edge_svc.settings import EdgeSettings
from services.clients import ClassifierClient, IndexerClient
from services.runtime.channels import open_channel
from tests.support import SEED_BODY


async def test_index_list_get_delete_round_trip(admin_http: httpx.AsyncClient, mesh, seed_body) -> None:
    holidays = seed_body
    created = await admin_http.post("/v1/admin/endpoints", json=holidays)
    assert created.status_code == 201
    stored = created.json()["endpoint"]
    assert stored["name"] == "get_national_holidays"
    assert stored["params"][0]["required"] is True
    assert stored["enrichedContext"].startswith("get_national_holidays:")
    assert mesh.indexer.endpoints[holidays["endpointId"]].params[2].type == "date"

    again = await admin_http.post("/v1/admin/endpoints", json=holidays)
    assert again.status_code == 200
    assert again.json()["replaced"] is True

    listed = (await admin_http.get("/v1/admin/endpoints")).json()
    assert [e["endpointId"] for e in listed["endpoints"]] == [holidays["endpointId"]]

    one = await admin_http.get(f"/v1/admin/endpoints/{holidays['endpointId']}")
    assert one.status_code == 200
    assert one.json()["endpoint"]["url"] == holidays["url"]

    deleted = await admin_http.delete(f"/v1/admin/endpoints/{holidays['endpointId']}")
    assert deleted.json() == {"deleted": True, "endpointId": holidays["endpointId"]}
    assert mesh.indexer.endpoints == {}
    assert (await admin_http.delete(f"/v1/admin/endpoints/{holidays['endpointId']}")).status_code == 404
    missing = await admin_http.get(f"/v1/admin/endpoints/{holidays['endpointId']}")
    assert missing.status_code == 404
    assert missing.json()["error"]["reason"] == "NOT_FOUND"


async def test_indexer_invalid_argument_is_400_with_field(admin_http: httpx.AsyncClient, mesh) -> None:
    response = await admin_http.post("/v1/admin/endpoints", json={**SEED_BODY, "url": "openholidaysapi.org"})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "endpoint.url"
    assert mesh.indexer.endpoints == {}


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({**SEED_BODY, "owner": "x"}, "owner"),
        ({**SEED_BODY, "params": [{"name": "a", "required": "maybe"}]}, "params[0].required"),
        ({**SEED_BODY, "params": [{"name": "a", "color": "red"}]}, "params[0].color"),
        ({**SEED_BODY, "name": 42}, "name"),
    ],
)
async def test_malformed_endpoint_body_is_400_naming_the_field(
    admin_http: httpx.AsyncClient, mesh, payload: dict, field: str
) -> None:
    response = await admin_http.post("/v1/admin/endpoints", json=payload)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field
    assert mesh.indexer.endpoints == {}


def test_parse_error_field_falls_back_to_none() -> None:
    assert parse_error_field("something else entirely") is None


async def test_admin_listener_can_be_switched_off(mesh) -> None:
    classifier = ClassifierClient(open_channel(mesh.server.address))
    indexer = IndexerClient(open_channel(mesh.server.address))
    try:
        apps = create_apps(EdgeSettings(admin_enabled=False, admin_token="t"), classifier, indexer)
        assert apps.admin is None
        # No token configured: no admin listener either.
        assert create_apps(EdgeSettings(), classifier, indexer).admin is None
    finally:
        await classifier.close()
        await indexer.close()
