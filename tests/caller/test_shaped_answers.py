"""Every answer shape in three languages through a real CallerService (gRPC on port 0),
the real demo APIs over HTTP and a real Redis: the question's shape travels in the
EndpointCall and the answer fits it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest

from atc.caller.v1 import caller_pb2, caller_pb2_grpc
from atc.common.v1 import chat_pb2
from services import answer_shape
from services.answer_shape import (
    Aggregation,
    AnswerShape,
    Comparison,
    DateRange,
    Function,
    Hours,
    Kind,
    Op,
    Order,
    RowFilter,
    Selection,
)
from tests.caller.test_caller_grpc import answer, catalogue, catalogue_endpoint, collect, indexer_target, stub

__all__ = ["catalogue", "indexer_target", "stub"]  # fixtures used by name below

LANGS = {"en": chat_pb2.LANGUAGE_EN, "et": chat_pb2.LANGUAGE_ET, "ru": chat_pb2.LANGUAGE_RU}
YES = {"en": "Yes.", "et": "Jah.", "ru": "Да."}
NO = {"en": "No.", "et": "Ei.", "ru": "Нет."}
ZONE = ZoneInfo("Europe/Tallinn")
# A Tallinn day in winter, as the loop sends it: its 00:00 and 23:59:59 local time in UTC.
DAY = {"start": "2026-12-01T22:00:00Z", "end": "2026-12-02T21:59:59Z"}


async def ask(
    stub: caller_pb2_grpc.CallerServiceStub,
    url: str,
    name: str,
    params: dict[str, str],
    shape: AnswerShape,
    lang: str,
) -> str:
    call = caller_pb2.EndpointCall(
        endpoint=catalogue_endpoint(url, name), params=params, shape=answer_shape.to_proto(shape)
    )
    events = await collect(stub, calls=[call], user_query=shape.question, language=LANGS[lang], owner_id="")
    return answer(events)


def day_prices(url: str) -> list[tuple[str, float]]:
    """(local HH:MM, price) of every hour of the day, read from the API itself."""
    body = httpx.get(f"{url}/electricity-prices", params=DAY).json()
    out = []
    for row in body["data"]["ee"]:
        local = datetime.fromisoformat(row["time"].replace("Z", "+00:00")).astimezone(ZONE)
        out.append((f"{local:%H:%M}", row["price"]))
    return out


def number(value: float, lang: str) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if lang == "en" else text.replace(".", ",")


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_yes_no_opens_with_the_verdict_then_the_fact(stub, demo_api_url, lang) -> None:
    params = {"countryIsoCode": "DE", "validFrom": "2026-12-26", "validTo": "2026-12-26"}
    shape = AnswerShape(Kind.YES_NO, filters=(RowFilter(DateRange(*(datetime(2026, 12, 26).date(),) * 2)),))
    text = await ask(stub, demo_api_url, "get_national_holidays", params, shape, lang)
    assert text.startswith(YES[lang]), text
    assert "26" in text
    eve = {"countryIsoCode": "DE", "validFrom": "2026-12-24", "validTo": "2026-12-24"}
    text = await ask(stub, demo_api_url, "get_national_holidays", eve, AnswerShape(Kind.YES_NO), lang)
    assert text.startswith(NO[lang]), text


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_exactly_the_last_n(stub, demo_api_url, lang) -> None:
    shape = AnswerShape(Kind.COUNT, selection=Selection(Order.LATEST, 3))
    text = await ask(stub, demo_api_url, "get_parliament_votings", {"limit": "20"}, shape, lang)
    bullets = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(bullets) == 3
    async with httpx.AsyncClient() as client:
        newest = (await client.get(f"{demo_api_url}/votings", params={"limit": 3})).json()
    for voting, line in zip(newest, bullets, strict=True):
        assert str(voting["votingNumber"]) in line


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@pytest.mark.parametrize("order", [Order.LOWEST, Order.HIGHEST])
async def test_an_extreme_with_its_local_time_and_value(stub, demo_api_url, lang, order) -> None:
    prices = day_prices(demo_api_url)
    when, value = (min if order is Order.LOWEST else max)(prices, key=lambda p: p[1])
    text = await ask(
        stub,
        demo_api_url,
        "get_electricity_prices",
        DAY,
        AnswerShape(Kind.EXTREME, selection=Selection(order)),
        lang,
    )
    bullets = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(bullets) == 1 and when in bullets[0] and number(value, lang) in bullets[0], text


# A Tallinn week (7-13 December 2026) as the loop sends it.
WEEK = {"start": "2026-12-06T22:00:00Z", "end": "2026-12-13T21:59:59Z"}
DAY_WORDS = {"en": "Dec", "et": "detsember", "ru": "декабря"}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@pytest.mark.parametrize("order", [Order.LOWEST, Order.HIGHEST])
async def test_an_extreme_over_several_days_names_its_day(stub, demo_api_url, lang, order) -> None:
    async with httpx.AsyncClient() as client:
        body = (await client.get(f"{demo_api_url}/electricity-prices", params=WEEK)).json()
    row = (min if order is Order.LOWEST else max)(body["data"]["ee"], key=lambda r: r["price"])
    local = datetime.fromisoformat(row["time"].replace("Z", "+00:00")).astimezone(ZONE)
    text = await ask(
        stub,
        demo_api_url,
        "get_electricity_prices",
        WEEK,
        AnswerShape(Kind.EXTREME, selection=Selection(order)),
        lang,
    )
    (bullet,) = [line for line in text.splitlines() if line.startswith("• ")]
    assert f"{local:%H:%M}" in bullet and number(row["price"], lang) in bullet, text
    assert re.search(rf"\b{local.day}\.? {DAY_WORDS[lang]}", bullet), bullet


TWO_DAYS = {"start": "2026-11-30T22:00:00Z", "end": "2026-12-02T21:59:59Z"}  # 1–2 Dec, local


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@pytest.mark.parametrize("op", [Op.LT, Op.GT])
@pytest.mark.parametrize("subject_first", [True, False])
async def test_one_day_compared_with_another(stub, demo_api_url, lang, op, subject_first) -> None:
    """ "Is it cheaper tomorrow than today?", "сегодня дороже, чем вчера?": yes or no by
    the two days' means (local days), then both means, the asked day first."""
    async with httpx.AsyncClient() as client:
        body = (await client.get(f"{demo_api_url}/electricity-prices", params=TWO_DAYS)).json()
    by_day: dict[int, list[float]] = {}
    for row in body["data"]["ee"]:
        local = datetime.fromisoformat(row["time"].replace("Z", "+00:00")).astimezone(ZONE)
        by_day.setdefault(local.day, []).append(row["price"])
    means = {day: round(sum(p) / len(p), 2) for day, p in by_day.items()}
    assert sorted(means) == [1, 2] and all(len(p) == 24 for p in by_day.values())
    one, two = datetime(2026, 12, 1).date(), datetime(2026, 12, 2).date()
    subject, reference = (two, one) if subject_first else (one, two)
    shape = AnswerShape(
        Kind.YES_NO,
        filters=(RowFilter(DateRange(one, two)),),
        period_comparison=answer_shape.PeriodComparison(
            DateRange(subject, subject), DateRange(reference, reference), op
        ),
    )
    text = await ask(stub, demo_api_url, "get_electricity_prices", TWO_DAYS, shape, lang)
    holds = op.holds(means[subject.day], means[reference.day])
    assert text.startswith(YES[lang] if holds else NO[lang]), text
    first, second = number(means[subject.day], lang), number(means[reference.day], lang)
    assert first in text and second in text and text.index(first) < text.index(second), text


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_an_average_over_the_asked_hours(stub, demo_api_url, lang) -> None:
    prices = day_prices(demo_api_url)
    evening = [p for t, p in prices if 18 <= int(t[:2]) < 22]
    shape = AnswerShape(
        Kind.AGGREGATE, filters=(RowFilter(Hours(18, 22)),), aggregation=Aggregation(Function.AVERAGE)
    )
    text = await ask(stub, demo_api_url, "get_electricity_prices", DAY, shape, lang)
    assert number(round(sum(evening) / len(evening), 2), lang) in text
    assert "18:00–22:00" in text.splitlines()[0]


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_a_time_window_and_a_full_day_by_the_hour(stub, demo_api_url, lang) -> None:
    window = await ask(
        stub,
        demo_api_url,
        "get_electricity_prices",
        DAY,
        AnswerShape(filters=(RowFilter(Hours(18, 22)),)),
        lang,
    )
    hours = re.findall(r"^• (\d\d):00", window, re.M)
    assert hours == ["18", "19", "20", "21"]
    full = await ask(stub, demo_api_url, "get_electricity_prices", DAY, AnswerShape(Kind.FULL_LIST), lang)
    assert re.findall(r"^• (\d\d):00", full, re.M) == [f"{h:02d}" for h in range(24)]
    assert not any(line.startswith("…") for line in full.splitlines())


@pytest.mark.parametrize(
    ("lang", "terms", "label"),
    [
        ("en", ("postal", "code"), "postal code"),
        ("et", ("postiindeks",), "Postiindeks"),
        ("ru", ("почтовый", "индекс"), "Почтовый индекс"),
    ],
)
async def test_the_asked_field(stub, demo_api_url, lang, terms, label) -> None:
    shape = AnswerShape(terms=(*terms, "ulikooli", "18"))
    text = await ask(stub, demo_api_url, "search_address", {"address": "Tartu"}, shape, lang)
    bullets = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(bullets) == 1 and "Ülikooli tn 18" in bullets[0] and f"{label}: 50090" in bullets[0], text


@pytest.mark.parametrize(
    ("lang", "terms", "label", "question"),
    [
        ("en", ("postal", "code"), "postal code", "just the postal code for ulikooli 18"),
        ("et", ("postiindeks",), "Postiindeks", "ainult ulikooli 18 postiindeks"),
        ("ru", ("индекс",), "Почтовый индекс", "только индекс: ulikooli 18"),
    ],
)
async def test_only_the_asked_field_leaves_the_rows_other_numbers_out(
    stub, demo_api_url, lang, terms, label, question
) -> None:
    # "just the postal code": the row's name and the field, no coordinates.
    shape = AnswerShape(terms=(*terms, "ulikooli", "18"), question=question)
    text = await ask(stub, demo_api_url, "search_address", {"address": "Tartu"}, shape, lang)
    bullets = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(bullets) == 1 and "Ülikooli tn 18" in bullets[0] and f"{label}: 50090" in bullets[0], text
    assert "58.38" not in text and "58,38" not in text and "26.7" not in text and "26,7" not in text, text


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_a_comparison_answers_yes_or_no_with_the_number(stub, demo_api_url, lang) -> None:
    params = {"regNr": "123ABC", "calculationYear": "2026"}
    async with httpx.AsyncClient() as client:
        tax = (await client.get(f"{demo_api_url}/vehicle-tax", params=params)).json()["tax"]["annualTax"]
    over = AnswerShape(Kind.YES_NO, filters=(RowFilter(Comparison(Op.GT, tax - 1)),), terms=("tax",))
    text = await ask(stub, demo_api_url, "get_vehicle_tax_info", params, over, lang)
    assert text.startswith(YES[lang]) and number(tax, lang) in text.splitlines()[1], text
    under = AnswerShape(Kind.YES_NO, filters=(RowFilter(Comparison(Op.LT, 50)),), terms=("euros",))
    assert (await ask(stub, demo_api_url, "get_vehicle_tax_info", params, under, lang)).startswith(NO[lang])


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "at most 7 days"), ("et", "kuni 7 päeva"), ("ru", "не больше 7 дней")]
)
async def test_a_refused_value_is_explained_from_the_apis_error(stub, demo_api_url, lang, said) -> None:
    start = datetime(2026, 11, 1, tzinfo=UTC)
    params = {
        "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "end": (start + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    text = await ask(stub, demo_api_url, "get_electricity_prices", params, AnswerShape(), lang)
    assert said in text, text
    assert "period must not exceed" not in text.lower() or lang == "en"
