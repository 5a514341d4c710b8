"""The blind sets' judge is trusted only where it agrees with the writers: every ideal
reply they wrote passes it, and the same replies mutated the way wrong answers are wrong
(another month, other numbers, an English label in an et/ru reply, the opposite yes/no)
fail it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from bench.dialogue_judge import (
    NUMBER_WORDS,
    Observed,
    date_mentions,
    judge_kind,
    judge_text,
    language_ok,
    numbers_in,
)
from bench.eval_dialogues import load_cases

BLIND = Path(__file__).resolve().parents[1] / "data" / "blind"


def ideal_turns() -> Iterator[tuple[str, str, dict[str, Any], str]]:
    for path in sorted(BLIND.glob("set*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            for number, turn in enumerate(case["turns"]):
                yield f"{case['id']}#{number}", case["language"], turn["expect"], turn.get("ideal", "")


TURNS = list(ideal_turns())


def test_the_sets_load_and_every_turn_has_an_ideal_reply() -> None:
    cases = load_cases([BLIND / "set1"]) + load_cases([BLIND / "set1"], "answers_*.jsonl")
    assert len(cases) >= 500
    assert {c.language for c in cases} == {"en", "et", "ru"}
    assert all(ideal for _, _, _, ideal in TURNS)


def test_every_ideal_reply_passes() -> None:
    failed = []
    for turn_id, language, expect, ideal in TURNS:
        verdict = judge_text(expect, ideal, language)
        if not verdict.passed:
            failed.append(f"{turn_id}: {verdict.reasons}")
    assert not failed, "\n".join(failed)


_NEXT_MONTH = {
    "en": "january february march april may june july august september october november december",
    "et": "jaanuar veebruar märts aprill mai juuni juuli august september oktoober november detsember",
    "ru": "января февраля марта апреля мая июня июля августа сентября октября ноября декабря",
}


def shift_months(text: str) -> str:
    """Every date in the text a month later: month words, ISO and numeric dates."""

    def iso(m: re.Match[str]) -> str:
        month = int(m["m"]) % 12 + 1
        return f"{m['y']}-{month:02d}-{m['d']}"

    def numeric(m: re.Match[str]) -> str:
        month = int(m["m"]) % 12 + 1
        return f"{m['d']}.{month:02d}{m['rest']}"

    text = re.sub(r"(?P<y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)", iso, text)
    text = re.sub(r"(?<![\d.])(?P<d>[0-3]?\d)\.(?P<m>[01]\d)(?P<rest>\.|\b)", numeric, text)
    for names in _NEXT_MONTH.values():
        stems = [n[:-1] if len(n) > 4 else n for n in names.split()]
        pattern = re.compile(r"(?<![^\W\d_])(" + "|".join(map(re.escape, stems)) + r")", re.IGNORECASE)
        # Through a placeholder, so a month moved once is not moved again.
        text = pattern.sub(lambda m, s=stems: f"«{s.index(m.group(1).lower())}»", text)
        text = re.sub(r"«(\d+)»", lambda m, s=stems: s[(int(m.group(1)) + 1) % 12], text)
    for short, full in (("dec", "december"), ("jan", "january"), ("nov", "november"), ("feb", "february")):
        text = re.sub(rf"\b{short}\b", full, text, flags=re.IGNORECASE)
    return text


def test_a_month_later_fails_where_dates_are_expected() -> None:
    checked = caught = 0
    missed = []
    for turn_id, language, expect, ideal in TURNS:
        if not expect.get("dates"):
            continue
        mutated = shift_months(ideal)
        wanted = expect["dates"]
        # Only a mutation that really moved every wanted date counts as a wrong answer.
        still_named = any(
            any(m.is_(date.fromisoformat(d)) for m in date_mentions(mutated, expand_ranges=True))
            for d in wanted
        )
        if still_named:
            continue
        checked += 1
        if judge_text(expect, mutated, language).passed:
            missed.append(f"{turn_id}: {mutated[:120]}")
        else:
            caught += 1
    assert checked >= 100
    assert not missed, "\n".join(missed)


def perturb_numbers(text: str, expected: list[float | str] | None = None) -> str:
    """Every number moved far from where it was, and from every expected number (a plate's
    digits moved by one offset can land on the tax: "123ABC" → 1169.51 beside 1168.47).
    Writers give some numbers as strings (postal codes: "10148")."""
    wanted = [float(str(e).replace(",", ".")) for e in expected or []]
    numbers = [float(m.replace(",", ".")) for m in re.findall(r"\d+(?:[.,]\d+)?", text)]
    for offset in (1001, 2003, 5009, 7919):
        moved = [round(n * 1.37 + offset, 2) for n in numbers]
        if not any(abs(m - e) <= max(1.0, abs(e) * 0.01) for m in moved for e in wanted):
            break
    values = iter(moved)
    text = re.sub(r"\d+(?:[.,]\d+)?", lambda _: str(next(values)), text)
    # A count said in words ("six of them") is a number too: it becomes none.
    words = "|".join(sorted({w for ws in NUMBER_WORDS.values() for w in ws}, key=len, reverse=True))
    return re.sub(rf"(?<!\w)(?:{words})(?!\w)", "many", text, flags=re.IGNORECASE)


def test_other_numbers_fail_where_numbers_are_expected() -> None:
    checked = 0
    missed = []
    for turn_id, language, expect, ideal in TURNS:
        if not expect.get("numbers"):
            continue
        checked += 1
        if judge_text(expect, perturb_numbers(ideal, expect["numbers"]), language).passed:
            missed.append(turn_id)
    assert checked >= 40
    assert not missed, missed


_ENGLISH_LABELS = "\nStatus: Ready for pickup. Application number and the pickup office are shown above."


def test_an_english_label_in_an_estonian_or_russian_reply_fails() -> None:
    missed = [
        turn_id
        for turn_id, language, expect, ideal in TURNS
        if language in ("et", "ru") and judge_text(expect, ideal + _ENGLISH_LABELS, language).passed
    ]
    assert not missed, missed


@pytest.mark.parametrize(
    ("text", "language", "ok"),
    [
        ("Почтовый индекс адреса Viru tn 4, Tallinn — 10140 (Harju maakond, Tallinn).", "ru", True),
        ("Postal code of Viru tn 4, Tallinn is 10140.", "ru", False),
        ("ID-kaardi taotlus A7777777 on menetluses.", "et", True),
        ("Application number A7777777: In processing.", "et", False),
        ("On weekdays: 1 January (Friday). Easter Sunday falls on a Sunday.", "en", True),
        ("Riigipüha on 1. jaanuaril ja see on reede.", "en", False),
        ("The Riigikogu voted on Mootorsõidukimaksu seaduse muutmise seaduse eelnõu (612 SE).", "en", True),
    ],
)
def test_language_is_judged_by_words_not_by_quoted_names(text: str, language: str, ok: bool) -> None:
    assert language_ok(text, language) is ok


def test_the_opposite_answer_fails_a_yes_no_question() -> None:
    checked = 0
    missed = []
    flip = {
        "en": ("Yes", "No"),
        "et": ("Jah", "Ei"),
        "ru": ("Да", "Нет"),
    }
    for turn_id, language, expect, ideal in TURNS:
        if expect.get("yes_no") not in ("yes", "no"):
            continue
        yes, no = flip[language]
        wrong = no if expect["yes_no"] == "yes" else yes
        checked += 1
        if judge_text(expect, f"{wrong}. {ideal}", language).passed:
            missed.append(turn_id)
    assert checked >= 30
    assert not missed, missed


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("24. detsembril ja 1. jaanuaril", [(24, 12), (1, 1)]),
        ("с 21 декабря по 4 января", [(21, 12), (4, 1)]),
        ("December 24–26, 2026", [(24, 12), (25, 12), (26, 12)]),
        ("01.03–07.03.2027", [(1, 3), (7, 3)]),
        ("talvevaheaeg 1.–3.03.2027", [(1, 3), (2, 3), (3, 3)]),
        ("sügisvaheaeg 19.–20.10.", [(19, 10), (20, 10)]),
        ("в воскресенье 29.11.2026", [(29, 11)]),
        ("hind 24.12 €/MWh kell 18.00", []),
        ("3 sept and Dec. 24", [(3, 9), (24, 12)]),
        ("24. juunil ja 1. mail", [(24, 6), (1, 5)]),
    ],
)
def test_dates_are_read_in_every_common_form(text: str, dates: list[tuple[int, int]]) -> None:
    assert [(m.day, m.month) for m in date_mentions(text, expand_ranges=True)] == dates


@pytest.mark.parametrize(
    "word",
    [
        "jaanipäev",
        "jaanilaupäev",
        "decision",
        "novel",
        "market",
        "augmented",
        "julgelt",
        "decided",
        "сенокос",
    ],
)
@pytest.mark.parametrize("day", [1, 6, 24])
def test_a_word_that_only_starts_like_a_month_is_no_month(word: str, day: int) -> None:
    """ "24.06 jaanipäev" is 24 June, not 6 January: a month's abbreviation stands alone."""
    assert [(m.day, m.month) for m in date_mentions(f"{day} {word}", expand_ranges=True)] == []
    assert [(m.day, m.month) for m in date_mentions(f"24.06 {word}", expand_ranges=True)] == [(24, 6)]


def test_numbers_are_read_in_every_common_formatting() -> None:
    assert numbers_in("1 298,30 € ja 1298.3 ning 103,14") == [1298.30, 1298.3, 103.14]


def test_kind_is_read_from_what_the_turn_did() -> None:
    answered = Observed.from_response(
        {
            "content": "…",
            "outcome": "TURN_OUTCOME_ANSWERED",
            "workflow": "WORKFLOW_API_TOOL_CALLING",
            "callOutcomes": [{"endpointName": "get_national_holidays", "success": True}],
        }
    )
    asked = Observed.from_response(
        {
            "content": "Which country?",
            "outcome": "TURN_OUTCOME_NEEDS_INPUT",
            "workflow": "WORKFLOW_API_TOOL_CALLING",
            "question": {"endpointNames": ["get_vehicle_tax_info"]},
        }
    )
    assert judge_kind({"kind": "api_answer", "capability": "public_holidays"}, answered).passed
    assert not judge_kind({"kind": "api_answer", "capability": "vehicle_tax"}, answered).passed
    assert judge_kind({"kind": ["ask", "api_answer"], "capability": "vehicle_tax"}, asked).passed
    assert not judge_kind({"kind": "refuse"}, asked).passed
    assert not judge_kind({"kind": "small_talk"}, answered).passed


@pytest.mark.parametrize(
    ("language", "reply", "wanted", "passes"),
    [
        ("en", "Six of this year's holidays fall on a weekend.", 6, True),
        ("et", "Kaks: kevadvaheaeg ja suvevaheaeg.", 2, True),
        ("ru", "Осталось двое каникул? Нет, три.", 3, True),
        ("en", "Seven of them fall on a weekend.", 6, False),
        ("en", "Sixty holidays.", 6, False),
    ],
)
def test_a_count_said_in_words_is_the_number(language: str, reply: str, wanted: int, passes: bool) -> None:
    expect = {"kind": "api_answer", "numbers": [wanted]}
    assert (wanted in numbers_in(reply)) is passes
    assert judge_text(expect, reply, language).passed is passes
