"""Near matches: a search that finds nothing is tried with the broader values the call
carries, and the rows nearest to what was asked are the answer, said to be near.

Through the real executor, HTTP caller and demo address register (no mocks); the
broader values are written here as the loop sends them (tests/loop/test_loop_addresses.py
pins how it makes them)."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caller_svc.circuit_breaker import CircuitBreaker
from caller_svc.egress import GuardedTransport
from caller_svc.endpoint import EndpointSpec, ParamSpec
from caller_svc.executor import CallExecutor, PlannedCall
from caller_svc.formatter import DeterministicFormatter, ResultToFormat
from caller_svc.http_caller import ApiCaller
from caller_svc.near_match import NearMatch, found_nothing, nearest, similarity, words
from caller_svc.result_store import ResultStore
from devtools.demo_apis.addresses import ADDRESSES


@pytest.fixture()
async def executor(redis_client, egress_guard):
    async with httpx.AsyncClient(transport=GuardedTransport(egress_guard)) as http:
        caller = ApiCaller(http, CircuitBreaker(redis_client), timeout_seconds=5, guard=egress_guard)
        yield CallExecutor(caller, ResultStore(redis_client), batch_timeout_seconds=5)


def _search(demo_api_url: str) -> EndpointSpec:
    return EndpointSpec(
        "search_address", "GET", f"{demo_api_url}/address-search", (ParamSpec("address", "string"),)
    )


@pytest.mark.parametrize(
    ("asked", "broader", "found"),
    [
        # A letter missing from the house number, the street right.
        (
            "Raekoja plats 1, Tartu",
            ["Raekoja plats, Tartu", "Raekoja plats", "Tartu"],
            "Raekoja plats 1a, Tartu",
        ),
        # A letter missing from the street name: the town alone finds it.
        ("Petri plats 5, Narva", ["Petri plats, Narva", "Petri plats", "Narva"], "Peetri plats 5, Narva"),
        # No town, a letter missing: the street's first letters find it.
        ("Akademia tee 3", ["Akademia tee", "Ak tee 3"], "Akadeemia tee 3, Tallinn"),
        # A town in a case form: the street alone finds it.
        ("Linnu tee 1, Viljandis", ["Linnu tee, Viljandis", "Linnu tee"], "Linnu tee 1, Viljandi"),
    ],
)
async def test_a_search_that_finds_nothing_answers_with_the_nearest_row(
    executor, demo_api_url, asked, broader, found
) -> None:
    call = PlannedCall(
        _search(demo_api_url), {"address": asked}, broader=tuple({"address": b} for b in broader)
    )
    (report,) = await executor.run([call], question=asked, lang="en", owner_id="o")
    assert report.near_match
    assert [row["address"] for row in report.result.data["addresses"]] == [found]
    assert report.result.data["count"] == 1
    text = DeterministicFormatter().format(
        [ResultToFormat("search_address", True, report.result.data, near_match=True)], "en"
    )
    assert text.startswith("Nothing matches exactly") and found.split(",")[0] in text


async def test_an_address_not_in_the_register_stays_not_found(executor, demo_api_url) -> None:
    broader = ["Niine, Tallinn", "Niine", "Tallinn", "Ni 11, Tallinn"]
    call = PlannedCall(
        _search(demo_api_url),
        {"address": "Niine 11, Tallinn"},
        broader=tuple({"address": b} for b in broader),
    )
    (report,) = await executor.run([call], question="q", lang="et", owner_id="o")
    assert not report.near_match
    assert found_nothing(report.result.data)


async def test_an_exact_match_makes_no_broader_call(executor, demo_api_url) -> None:
    call = PlannedCall(
        _search(demo_api_url), {"address": "Viru tn 4, Tallinn"}, broader=({"address": "Tallinn"},)
    )
    (report,) = await executor.run([call], question="q", lang="en", owner_id="o")
    assert not report.near_match
    assert [row["address"] for row in report.result.data["addresses"]] == ["Viru tn 4, Tallinn"]


def _register_rows() -> dict[str, object]:
    return {"count": len(ADDRESSES), "addresses": [a.as_json() for a in ADDRESSES]}


def _typo(name: str, position: int, kind: int) -> str:
    """The name with one letter doubled (kind 0) or dropped (kind 1) after its first two."""
    i = 2 + position % max(1, len(name) - 2)
    return name[:i] + name[i] + name[i:] if kind == 0 else name[:i] + name[i + 1 :]


@settings(max_examples=60, deadline=None)
@given(index=st.integers(0, len(ADDRESSES) - 1), position=st.integers(0, 20), kind=st.integers(0, 1))
def test_one_letter_off_in_a_street_name_is_nearest_its_own_address(
    index: int, position: int, kind: int
) -> None:
    """Of the whole register, an address with one letter of its street name doubled or
    dropped is nearest to itself (or to an address of the same street name and number)."""
    address = ADDRESSES[index]
    name, *rest = address.street.split()
    if len(name) < 5:
        return
    asked = " ".join([_typo(name, position, kind), *rest]) + f", {address.settlement}"
    kept = nearest(_register_rows(), words(asked), NearMatch())
    assert kept is not None
    assert address.as_json() in kept["addresses"]


def test_another_street_with_the_same_number_is_not_near() -> None:
    viru = next(a for a in ADDRESSES if a.street == "Viru tn 4").as_json()
    assert similarity(words("Niine tn 4, Tallinn"), viru, NearMatch().min_word_similarity) == 0.0


def test_a_long_value_is_read_promptly() -> None:
    """100,000 characters of asked words, or one word that long, are read and scored."""
    asked = words("Raekoja " * 12_500 + "plats 1")
    kept = nearest(_register_rows(), asked, NearMatch())
    assert kept is not None
    assert {row["address"] for row in kept["addresses"]} == {
        "Raekoja plats 1, Tallinn",
        "Raekoja plats 1a, Tartu",
    }
    assert similarity(words("a" * 100_000), ADDRESSES[0].as_json()) < 0.5
