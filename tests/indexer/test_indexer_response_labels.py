"""Per-language response labels survive indexing, and URLs with credentials never get in."""

from __future__ import annotations

from typing import Any

import pytest

from devtools.demo_apis.catalogue import load_catalogue
from indexer_svc.proto_mapping import endpoint_message
from indexer_svc.validation import parse_endpoint
from services.errors import InvalidArgument


def demo_body(name: str) -> dict[str, Any]:
    return next(b for b in load_catalogue("http://127.0.0.1:8090") if b["name"] == name)


def test_demo_labels_map_to_the_proto() -> None:
    message = endpoint_message(parse_endpoint(demo_body("get_vehicle_tax_info")))
    assert message.answer_titles["et"] == "Mootorsõidukimaks"
    fuel = next(label for label in message.response_labels if label.field == "fuelType")
    assert fuel.labels["ru"] == "Топливо"
    assert {v.value: v.labels["et"] for v in fuel.values}["petrol"] == "bensiin"
    mass = next(label for label in message.response_labels if label.field == "fullMassKg")
    assert mass.units["ru"] == "кг"


def test_every_demo_endpoint_has_labels_in_three_languages() -> None:
    for body in load_catalogue("http://127.0.0.1:8090"):
        endpoint = parse_endpoint(body)
        assert set(endpoint.answer_titles) == {"en", "et", "ru"}, body["name"]
        assert endpoint.response_labels, body["name"]
        for label in endpoint.response_labels:
            assert set(label.labels) == {"en", "et", "ru"}, (body["name"], label.field)


def test_label_languages_must_be_codes() -> None:
    body = demo_body("get_national_holidays")
    body["answerTitles"] = {"Estonian": "Riigipühad"}
    with pytest.raises(InvalidArgument) as raised:
        parse_endpoint(body)
    assert raised.value.field == "endpoint.answer_titles"


@pytest.mark.parametrize(
    "url",
    [
        "https://user:secret@api.example.ee/v1",
        "https://token@api.example.ee/v1",
        "http://:pw@api.example.ee/",
    ],
)
def test_credentials_in_urls_are_refused_at_indexing(url: str) -> None:
    body = demo_body("get_national_holidays")
    body["url"] = url
    with pytest.raises(InvalidArgument, match="credentials") as raised:
        parse_endpoint(body)
    assert raised.value.field == "endpoint.url"
