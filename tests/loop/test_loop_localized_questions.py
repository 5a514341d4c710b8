"""Clarifying questions name every parameter in the citizen's language: from the
catalogue's localized descriptions when it has them, and otherwise by what the parameter
is (a number, a time, the expected form) — never its English name or description inside
an Estonian or Russian sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer_svc.proto_mapping import endpoint_message
from indexer_svc.validation import parse_endpoint
from loop_svc.convert import endpoint_from_proto
from loop_svc.questions import clarifying_question, invalid_values
from loop_svc.schema import ParamSpec, name_words
from services.errors import InvalidArgument

DEMO = Path(__file__).resolve().parents[2] / "devtools" / "demo_apis"
_WORD = re.compile(r"[A-Za-z]{4,}")
# Words an Estonian or Russian question may share with the English text: codes and formats.
_SHARED = {"yyyy", "iso"}


def demo_params() -> list[ParamSpec]:
    bodies = json.loads((DEMO / "catalogue.json").read_text()) + json.loads(
        (DEMO / "services.json").read_text()
    )
    return [ParamSpec.model_validate(p) for body in bodies for p in body["params"]]


def english_words(param: ParamSpec) -> set[str]:
    localized = " ".join(param.descriptions.values()).lower()
    found = {w.lower() for w in _WORD.findall(param.description)} | {
        w for w in name_words(param.name) if len(w) > 3
    }
    return {w for w in found if w not in _SHARED and w not in localized}


@pytest.mark.parametrize("param", demo_params(), ids=lambda p: p.name)
def test_every_demo_parameter_is_described_in_three_languages(param: ParamSpec) -> None:
    assert set(param.descriptions) == {"en", "et", "ru"}
    assert param.descriptions["en"] == param.description


@pytest.mark.parametrize("lang", ["et", "ru"])
@pytest.mark.parametrize("param", demo_params(), ids=lambda p: p.name)
def test_a_question_for_any_demo_parameter_has_no_english_words(param: ParamSpec, lang: str) -> None:
    question = clarifying_question([param.model_copy(update={"required": True})], lang)  # type: ignore[arg-type]
    leaked = {w for w in english_words(param) if re.search(rf"\b{w}\b", question.lower())}
    assert not leaked, question


def test_the_localized_description_names_the_parameter() -> None:
    number = next(p for p in demo_params() if p.name == "applicationNumber")
    assert clarifying_question([number], "et") == "Palun täpsusta: taotluse number."
    assert "номер заявления" in clarifying_question([number], "ru")
    assert "application number" in clarifying_question([number], "en")
    wrong = invalid_values([(number, "A12")], "et")
    assert wrong.startswith("„A12“ ei ole sobiv taotluse number")
    assert "nt A1234567" in wrong


def test_without_a_localized_description_the_question_says_what_is_wanted() -> None:
    identifier = ParamSpec(
        name="permitCode", type="string", required=True, description="Permit code (e.g. AB123456)"
    )
    assert (
        clarifying_question([identifier], "et")
        == "Palun täpsusta: number (1–3 tähte ja 3–9 numbrit, nt AB123456)."
    )
    assert (
        clarifying_question([identifier], "ru")
        == "Пожалуйста, уточните: номер (1–3 буквы и 3–9 цифр, например AB123456)."
    )
    assert clarifying_question([identifier], "en") == "Could you tell me the permit code?"
    time = ParamSpec(name="leavingTime", type="string", required=True, description="Time to leave")
    assert clarifying_question([time], "et") == "Palun täpsusta: kellaaeg."
    assert clarifying_question([time], "ru") == "Пожалуйста, уточните: время."


_NAME_WORD = st.sampled_from(
    "restaurant movie event doctor dentist stylist city cuisine category subcategory genre song artist "
    "album hotel flight airline seat class party size account recipient amount title director street".split()
)


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(_NAME_WORD, min_size=1, max_size=3),
    kind=st.sampled_from(["string", "integer", "number", "boolean"]),
    snake=st.booleans(),
    description=st.sampled_from(["", "Name of the {w}", "The {w} to use", "Preferred {w} for the booking"]),
    lang=st.sampled_from(["et", "ru"]),
    several=st.booleans(),
)
def test_no_english_name_in_an_estonian_or_russian_question(
    words: list[str], kind: str, snake: bool, description: str, lang: str, several: bool
) -> None:
    name = "_".join(words) if snake else words[0] + "".join(w.title() for w in words[1:])
    param = ParamSpec(name=name, type=kind, required=True, description=description.format(w=words[-1]))
    missing = [param, ParamSpec(name="otherThing", type="string", required=True)] if several else [param]
    question = clarifying_question(missing, lang)  # type: ignore[arg-type]
    for word in [*words, "other", "thing", "name", "preferred", "booking"]:
        assert not re.search(rf"\b{word}\b", question, re.I), question


def test_localized_descriptions_survive_indexing_and_reach_the_loop() -> None:
    body = next(
        b for b in json.loads((DEMO / "catalogue.json").read_text()) if b["name"] == "get_vehicle_tax_info"
    )
    body["url"] = "http://127.0.0.1:8090/vehicle-tax"
    spec = endpoint_from_proto(endpoint_message(parse_endpoint(body)))
    plate = next(p for p in spec.params if p.name == "regNr")
    assert plate.descriptions["et"] == "Sõiduki registreerimisnumber (nt 123ABC)"
    assert plate.description_in("ru").startswith("Регистрационный номер")


def test_localized_description_languages_must_be_codes() -> None:
    body = json.loads((DEMO / "catalogue.json").read_text())[0]
    body["url"] = "http://127.0.0.1:8090/PublicHolidays"
    body["params"][0]["descriptions"] = {"Estonian": "Riik"}
    with pytest.raises(InvalidArgument) as raised:
        parse_endpoint(body)
    assert raised.value.field == "endpoint.params[0].descriptions"
