"""A follow-up that filters the listed rows by a true/false or enumerated field ("which
of those did not pass", "only the final votes", in en/et/ru) keeps exactly the rows with
that value: matched to the field's key, its labels and its values' labels (the demo
votings result and the catalogue's labels), or for a result's only flag, to how an
outcome is said. Generated over the grammar: frames × outcome/value words × negation."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from caller_svc.labels import FieldLabel, LabelBook
from caller_svc.operations import answer, value_filter
from caller_svc.rows import locate
from devtools.demo_apis.votings import recent_votings
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Kind

ZONE = ZoneInfo("Europe/Tallinn")
NOW = datetime(2026, 2, 20, 10, 0)
CATALOGUE = Path(__file__).resolve().parents[2] / "devtools" / "demo_apis" / "catalogue.json"
VOTINGS = next(
    b for b in json.loads(CATALOGUE.read_text(encoding="utf-8")) if b["name"] == "get_parliament_votings"
)
LABELS = LabelBook(
    fields={
        label["field"]: FieldLabel(
            labels=label["labels"], values={v["value"]: v["labels"] for v in label.get("values", [])}
        )
        for label in VOTINGS["responseLabels"]
    }
)
ROWS = recent_votings(10)
READER = RuleShapeReader(lambda: date(2026, 2, 20))


def numbers(message: str, lang: str) -> list[int]:
    table = locate(ROWS, LABELS, ZONE)
    assert table is not None
    outcome = answer(table, READER.read(message, lang), LABELS, NOW)  # type: ignore[arg-type]
    return [int(str(r.data["votingNumber"])) for r in outcome.rows]


def expected(field: str, value: Any, negate: bool) -> list[int]:
    return [int(str(r["votingNumber"])) for r in ROWS if (r[field] == value) != negate]


# lang → (frames with {word}, words saying "passed", words saying "failed", negation frames)
OUTCOMES = {
    "en": (
        ["which of those {w}", "only the ones that {w}", "show the ones that {w}"],
        ["passed", "were accepted", "were adopted", "were approved"],
        ["failed", "were rejected"],
        ["which of those did not {w}", "the ones that didn't {w}"],
        ["pass", "get accepted"],
    ),
    "et": (
        ["millised neist {w}", "ainult need, mis {w}"],
        ["läksid läbi", "võeti vastu", "kiideti heaks"],
        ["kukkusid läbi", "lükati tagasi"],
        ["millised neist ei {w}", "need, mis ei {w}"],
        ["läinud läbi"],
    ),
    "ru": (
        ["какие из них {w}", "только те, что {w}"],
        ["прошли", "приняты", "одобрили"],
        ["провалились", "отклонены"],
        ["какие из них не {w}", "те, что не {w}"],
        ["прошли", "приняты"],
    ),
}


@st.composite
def outcome_question(draw: st.DrawFn) -> tuple[str, str, bool]:
    lang = draw(st.sampled_from(sorted(OUTCOMES)))
    frames, yes, no, negated, negatable = OUTCOMES[lang]
    kind = draw(st.sampled_from(["yes", "no", "not"]))
    if kind == "not":
        return draw(st.sampled_from(negated)).format(w=draw(st.sampled_from(negatable))), lang, False
    word = draw(st.sampled_from(yes if kind == "yes" else no))
    return draw(st.sampled_from(frames)).format(w=word), lang, kind == "yes"


@settings(max_examples=80, deadline=None)
@given(outcome_question())
def test_a_flag_follow_up_keeps_the_rows_with_that_outcome(case: tuple[str, str, bool]) -> None:
    message, lang, passed = case
    assert numbers(message, lang) == expected("accepted", passed, negate=False), message


VALUES = {
    "en": (
        ["only the {w}", "just the {w} please", "which of them were {w}"],
        ["final votes", "final ones"],
        ["votes on motions", "motions"],
    ),
    "et": (
        ["ainult {w}", "millised neist olid {w}"],
        ["lõpphääletused", "lõpphääletusi"],
        ["ettepanekud", "ettepanekute hääletused"],
    ),
    "ru": (
        ["только {w}", "какие из них {w}"],
        ["окончательные голосования", "окончательные"],
        ["голосования по предложению", "по предложениям"],
    ),
}


@st.composite
def value_question(draw: st.DrawFn) -> tuple[str, str, str]:
    lang = draw(st.sampled_from(sorted(VALUES)))
    frames, final, motion = VALUES[lang]
    which = draw(st.sampled_from(["Lõpphääletus", "Ettepaneku hääletus"]))
    word = draw(st.sampled_from(final if which == "Lõpphääletus" else motion))
    return draw(st.sampled_from(frames)).format(w=word), lang, which


@settings(max_examples=80, deadline=None)
@given(value_question())
def test_an_enum_follow_up_keeps_the_rows_with_that_value(case: tuple[str, str, str]) -> None:
    message, lang, value = case
    assert numbers(message, lang) == expected("type", value, negate=False), message


def test_a_question_naming_no_value_filters_nothing() -> None:
    table = locate(ROWS, LABELS, ZONE)
    assert table is not None
    for message, lang in (
        ("who voted against", "en"),
        ("kes hääletas vastu", "et"),
        ("kuidas hääletati automaksu seaduse muutmist", "et"),
        ("сколько всего голосовали", "ru"),
        ("show the votes", "en"),
    ):
        shape = READER.read(message, lang)  # type: ignore[arg-type]
        assert value_filter(list(table.rows), table, LABELS, shape.terms, shape.question) is None, message


def test_a_yes_no_question_is_answered_by_the_flag_not_filtered() -> None:
    table = locate(ROWS, LABELS, ZONE)
    assert table is not None
    shape = READER.read("was the motor vehicle tax bill passed?", "en")
    assert shape.kind is Kind.YES_NO
    outcome = answer(table, shape, LABELS, NOW)
    assert outcome.verdict is True
