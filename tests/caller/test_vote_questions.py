"""Questions about votes, through a real CallerService (gRPC on port 0), the real demo
votings API over HTTP and a real Redis: a period the record does not reach is said to
have none, with the nearest vote's date; the votes a topic names are kept."""

from __future__ import annotations

from datetime import date, timedelta

import httpx
import pytest

from services.answer_shape import AnswerShape, DateRange, Kind, Order, RowFilter, Selection
from tests.caller.test_caller_grpc import catalogue, indexer_target, stub
from tests.caller.test_shaped_answers import NO, YES, ask

__all__ = ["catalogue", "indexer_target", "stub"]  # fixtures used by name below

NONE_SAID = {"en": "none in that period", "et": "pole ühtegi", "ru": "ничего нет"}
DAY_SAID = {
    "en": lambda d: f"{d.day} {d:%b} {d.year}",
    "et": lambda d: f"{d.day}.",
    "ru": lambda d: f"{d.day} ",
}


def _votings(url: str) -> list[dict]:
    return httpx.get(f"{url}/votings", params={"limit": 100}).json()


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@pytest.mark.parametrize("kind", [Kind.LIST, Kind.YES_NO])
@pytest.mark.parametrize("days_after", [1, 30, 200, 400])
async def test_a_period_after_the_record_says_none_and_the_latest_date(
    stub, demo_api_url, lang, kind, days_after
) -> None:
    votings = _votings(demo_api_url)
    newest = max(date.fromisoformat(v["date"]) for v in votings)
    start = newest + timedelta(days=days_after)
    shape = AnswerShape(kind, filters=(RowFilter(DateRange(start, start + timedelta(days=6))),))
    text = await ask(stub, demo_api_url, "get_parliament_votings", {"limit": "100"}, shape, lang)
    assert NONE_SAID[lang] in text.lower(), text
    latest = [v for v in votings if v["date"] == newest.isoformat()]
    assert any(str(v["votingNumber"]) in text for v in latest), text
    assert newest.strftime("%Y") in text and DAY_SAID[lang](newest) in text, text
    if kind is Kind.YES_NO:
        assert text.startswith(NO[lang]), text
    assert text.count("• ") == 1, text


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_a_period_before_the_record_names_the_first_vote_after_it(stub, demo_api_url, lang) -> None:
    votings = _votings(demo_api_url)
    oldest = min(votings, key=lambda v: v["date"])
    day = date.fromisoformat(oldest["date"]) - timedelta(days=40)
    shape = AnswerShape(Kind.LIST, filters=(RowFilter(DateRange(day, day + timedelta(days=6))),))
    text = await ask(stub, demo_api_url, "get_parliament_votings", {"limit": "100"}, shape, lang)
    assert NONE_SAID[lang] in text.lower() and str(oldest["votingNumber"]) in text, text


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@pytest.mark.parametrize("n", [1, 3, 5])
async def test_each_listed_vote_carries_its_clock_time(stub, demo_api_url, lang, n) -> None:
    shape = AnswerShape(Kind.COUNT if n > 1 else Kind.EXTREME, selection=Selection(Order.LATEST, n))
    text = await ask(stub, demo_api_url, "get_parliament_votings", {"limit": "20"}, shape, lang)
    bullets = [line for line in text.splitlines() if line.startswith("• ")]
    for voting, line in zip(_votings(demo_api_url)[:n], bullets, strict=True):
        assert voting["time"] in line and str(voting["votingNumber"]) in line, line


# (language, question, whether it asks for the rejected ones)
ANY_OUTCOME = [
    ("en", "was any of the latest votes rejected?", True),
    ("en", "did any of them fail", True),
    ("en", "did any of those pass?", False),
    ("et", "kas mõni viimastest hääletustest kukkus läbi?", True),
    ("et", "kas mõni neist jäi vastu võtmata, lükati tagasi?", True),
    ("et", "kas mõni läks läbi?", False),
    ("ru", "было среди последних голосований что-нибудь не принято?", True),
    ("ru", "что-то отклонили?", True),
    ("ru", "что-нибудь приняли?", False),
]


@pytest.mark.parametrize(("lang", "question", "rejected"), ANY_OUTCOME)
@pytest.mark.parametrize("limit", [3, 10, 15])
async def test_whether_any_vote_ended_so_is_answered_over_all_of_them(
    stub, demo_api_url, lang, question, rejected, limit
) -> None:
    from loop_svc.shapes import RuleShapeReader

    shape = RuleShapeReader(lambda: date(2026, 12, 4)).read(question, lang)
    assert shape.kind is Kind.YES_NO, shape
    text = await ask(stub, demo_api_url, "get_parliament_votings", {"limit": str(limit)}, shape, lang)
    shown = _votings(demo_api_url)[:limit]
    matching = [v for v in shown if v["accepted"] is not rejected]
    assert text.startswith(YES[lang] if matching else NO[lang]), text
    for voting in matching[:5]:
        assert str(voting["votingNumber"]) in text, text
    for voting in shown:
        if voting not in matching:
            assert f"№ {voting['votingNumber']}" not in text and f"no. {voting['votingNumber']}" not in text
