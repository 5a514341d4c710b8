"""Values that exist only up to a day after today ("…; published up to tomorrow at the
latest", in a parameter's description): a period wholly after it is explained (how far the
values go, tomorrow's published the day before) and that last day offered, which a yes
accepts; a period running past it is cut at that day and said. Generated over en/et/ru
and the ways a later day is named (a weekday, next week, a date); days up to tomorrow
pass untouched."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from loop_svc.constraints import beyond_horizon, latest_day
from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.loop import Complete, NeedsInput, TurnLoop
from loop_svc.schema import EndpointSpec, ParamSpec

ZONE = ZoneInfo("Europe/Tallinn")
# A Thursday: tomorrow is Friday 5 November.
NOW = datetime(2027, 11, 4, 10, 0, tzinfo=ZONE)
TODAY = NOW.date()
WINDOW = [
    ParamSpec(name="start", type="datetime", required=True, description="Start of the period (ISO 8601)"),
    ParamSpec(
        name="end",
        type="datetime",
        required=True,
        description=(
            "End of the period, at most 7 days after start; prices are published up to tomorrow at the latest"
        ),
    ),
]
ENDPOINT = EndpointSpec(name="prices", params=WINDOW)
LATER = {
    "en": [
        "prices this saturday",
        "electricity next wednesday",
        "prices for next week",
        "prices on 20 November",
    ],
    "et": [
        "mis elekter laupäeval maksma hakkab",
        "hinnad järgmisel kolmapäeval",
        "järgmise nädala hinnad",
        "hind 20. novembril",
    ],
    "ru": [
        "сколько будет стоить в субботу",
        "цена в следующую среду",
        "цены на следующей неделе",
        "цена 20 ноября",
    ],
}
TOMORROW_WORD = {"en": "tomorrow", "et": "homseni", "ru": "завтра"}
YES = {"en": "yes", "et": "jah", "ru": "да"}


@pytest.fixture(scope="module")
def loop() -> TurnLoop:
    extractor = RuleExtractor(CountryNames(), today=lambda: TODAY, zone=ZONE, now=lambda: NOW.astimezone(UTC))
    return TurnLoop(extractor, now=lambda: NOW)


@pytest.mark.parametrize(("language", "message"), [(lang, m) for lang, ms in LATER.items() for m in ms])
def test_a_period_after_the_last_day_is_explained_and_that_day_offered(
    loop: TurnLoop, language: str, message: str
) -> None:
    step = loop.advance(loop.new_session("c", [ENDPOINT], language=language, original_query=message), message)  # type: ignore[arg-type]
    assert isinstance(step.result, NeedsInput), step.result
    assert TOMORROW_WORD[language] in step.result.question.lower()
    assert "YYYY" not in step.result.question and "AAAA" not in step.result.question
    assert step.session is not None
    accepted = loop.advance(step.session, YES[language])
    assert isinstance(accepted.result, Complete)
    params = accepted.result.calls[0].params
    assert params["start"][:10] in ("2027-11-04", "2027-11-05") and params["end"][:10] == "2027-11-05"


@pytest.mark.parametrize(
    ("language", "message"),
    [("en", "prices this week"), ("et", "hinnad sel nädalal"), ("ru", "цены на этой неделе")],
)
def test_a_period_running_past_the_last_day_is_cut_there_and_said(
    loop: TurnLoop, language: str, message: str
) -> None:
    step = loop.advance(loop.new_session("c", [ENDPOINT], language=language, original_query=message), message)  # type: ignore[arg-type]
    assert isinstance(step.result, Complete), step.result
    assert step.result.calls[0].params["end"] == "2027-11-05T21:59:59Z"
    assert step.result.notes and TOMORROW_WORD[language] in step.result.notes[0].lower()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "prices tomorrow"),
        ("en", "prices yesterday"),
        ("et", "homme kella 18-22 hinnad"),
        ("ru", "цены вчера"),
        ("en", "electricity right now"),
    ],
)
def test_days_up_to_the_last_one_pass(loop: TurnLoop, language: str, message: str) -> None:
    step = loop.advance(loop.new_session("c", [ENDPOINT], language=language, original_query=message), message)  # type: ignore[arg-type]
    assert isinstance(step.result, Complete) and not step.result.notes, step.result


@pytest.mark.parametrize(
    ("description", "days"),
    [
        ("End; prices are published up to tomorrow at the latest", 1),
        ("Values exist no later than today", 0),
        ("at the latest tomorrow", 1),
        ("End of the period, at most 7 days after start", None),
    ],
)
def test_the_last_day_is_read_from_the_description(description: str, days: int | None) -> None:
    assert (
        latest_day([ParamSpec(name="end", type="datetime", required=True, description=description)]) == days
    )


def test_dates_without_hours_are_checked_the_same_way() -> None:
    days = [
        ParamSpec(name="from", type="date", required=True, description="First day (YYYY-MM-DD)"),
        ParamSpec(name="to", type="date", required=True, description="Last day; no later than tomorrow"),
    ]
    wholly = beyond_horizon(days, {"from": "2027-11-10", "to": "2027-11-12"}, NOW)
    assert wholly is not None and wholly.wholly and wholly.offer == {"from": "2027-11-05", "to": "2027-11-05"}
    partly = beyond_horizon(days, {"from": "2027-11-01", "to": "2027-11-12"}, NOW)
    assert (
        partly is not None
        and not partly.wholly
        and partly.offer == {"from": "2027-11-01", "to": "2027-11-05"}
    )
    assert beyond_horizon(days, {"from": "2027-11-01", "to": "2027-11-05"}, NOW) is None
    assert date(2027, 11, 5) == wholly.last_day


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "prices for the whole of october"),
        ("et", "elektri hinnad terve oktoobri kohta"),
        ("ru", "цены за весь октябрь"),
    ],
)
def test_a_bare_month_far_ahead_is_the_last_one_then_its_length_is_explained(
    loop: TurnLoop, language: str, message: str
) -> None:
    step = loop.advance(loop.new_session("c", [ENDPOINT], language=language, original_query=message), message)  # type: ignore[arg-type]
    assert isinstance(step.result, NeedsInput) and "7" in step.result.question, step.result
    assert "2027" in step.result.question and "2028" not in step.result.question


@pytest.mark.parametrize(
    ("language", "message", "day"),
    [
        ("et", "aga teisipäeval?", "2027-11-02"),
        ("en", "and on tuesday?", "2027-11-02"),
        ("ru", "а во вторник?", "2027-11-02"),
        ("ru", "а если только воскресенье?", "2027-10-31"),
        ("en", "what about saturday", "2027-10-30"),
    ],
)
def test_read_as_past_a_bare_weekday_is_the_last_one(language: str, message: str, day: str) -> None:
    from loop_svc.extraction.periods import read_as_past

    extractor = RuleExtractor(CountryNames(), today=lambda: TODAY, zone=ZONE, now=lambda: NOW.astimezone(UTC))
    with read_as_past():
        values = extractor.extract(message, WINDOW, language=language)  # type: ignore[arg-type]
    local = datetime.fromisoformat(values["start"].replace("Z", "+00:00")).astimezone(ZONE)
    assert local.date().isoformat() == day, values


@pytest.mark.parametrize(
    ("language", "message"),
    [("en", "prices this saturday"), ("et", "hinnad järgmisel kolmapäeval"), ("ru", "цены в эту субботу")],
)
def test_read_as_past_a_weekday_said_ahead_stays_ahead(language: str, message: str) -> None:
    from loop_svc.extraction.periods import read_as_past

    extractor = RuleExtractor(CountryNames(), today=lambda: TODAY, zone=ZONE, now=lambda: NOW.astimezone(UTC))
    with read_as_past():
        values = extractor.extract(message, WINDOW, language=language)  # type: ignore[arg-type]
    assert values["start"][:10] > "2027-11-04", values


@pytest.mark.parametrize(
    ("language", "message", "first"),
    [
        ("et", "esmaspäeva ja teisipäeva keskmine hind", "2027-11-01"),
        ("en", "average price on monday and tuesday", "2027-11-01"),
        ("ru", "средняя цена в понедельник и вторник", "2027-11-01"),
        ("en", "prices on saturday", "2027-10-30"),
    ],
)
def test_bare_weekdays_past_the_last_day_are_the_last_ones(
    loop: TurnLoop, language: str, message: str, first: str
) -> None:
    step = loop.advance(loop.new_session("c", [ENDPOINT], language=language, original_query=message), message)  # type: ignore[arg-type]
    assert isinstance(step.result, Complete), step.result
    opens = datetime.fromisoformat(step.result.calls[0].params["start"].replace("Z", "+00:00")).astimezone(
        ZONE
    )
    assert opens.date().isoformat() == first


@pytest.mark.parametrize(
    ("language", "message", "said"),
    [
        ("en", "prices for the whole of november", "7 days"),
        ("et", "elektri hinnad 1. kuni 14. november", "7 päeva"),
        ("ru", "цены с 1 по 14 ноября", "7 дней"),
    ],
)
def test_a_period_too_long_and_past_the_last_day_is_explained_as_too_long_first(
    loop: TurnLoop, language: str, message: str, said: str
) -> None:
    step = loop.advance(loop.new_session("c", [ENDPOINT], language=language, original_query=message), message)  # type: ignore[arg-type]
    assert isinstance(step.result, NeedsInput) and said in step.result.question, step.result
    assert step.session is not None
    accepted = loop.advance(step.session, YES[language])
    assert isinstance(accepted.result, Complete), accepted.result
    assert accepted.result.calls[0].params["end"] == "2027-11-05T21:59:59Z"
    assert accepted.result.notes and TOMORROW_WORD[language] in accepted.result.notes[0].lower()
