"""A question about the chat with a remark beside it ("what number did I use? I wrote it
down somewhere"), and "what did you say about X" answered by the answer on X, in three
languages. A second question or an order beside it is no remark."""

from __future__ import annotations

import itertools

import pytest

from classifier_svc.candidates import PriorMessage
from classifier_svc.conversation import HistoryQuestion, _remark_asks, classify_history_question, recap

QUESTIONS = {
    "en": ["what number did i give you?", "which plate did I use?"],
    "et": ["mis numbri ma sulle andsin?", "mis numbrit ma kasutasin?"],
    "ru": ["какой номер я тебе назвал?", "какой номер машины я использовал?"],
}
REMARKS = {
    "en": ["i wrote it down somewhere but lost the paper", "my wife says i mixed it up"],
    "et": ["kirjutasin selle üles aga ei leia paberit", "naine ütleb et ajasin segi"],
    "ru": ["записал где-то, но не могу найти бумажку", "жена говорит, я перепутал"],
}
LEADS = {"en": "wait,", "et": "oota,", "ru": "подожди, а"}
CASES = [
    (lang, q, r, before)
    for lang in QUESTIONS
    for q, r in itertools.product(QUESTIONS[lang], REMARKS[lang])
    for before in (False, True)
]


@pytest.mark.parametrize(("lang", "question", "remark", "before"), CASES)
def test_a_remark_beside_a_question_about_the_chat_leaves_it_one(
    lang: str, question: str, remark: str, before: bool
) -> None:
    message = f"{remark}. {question}" if before else f"{LEADS[lang]} {question} {remark}"
    asked = classify_history_question(message)
    assert asked is not None and asked.kind is HistoryQuestion.VALUES and asked.language == lang, message


@pytest.mark.parametrize(
    "message",
    [
        "what number did i give you? and what is the tax for 2026?",
        "mis numbri ma sulle andsin? aga mis on maks 2027 aastaks?",
        "какой номер я тебе назвал? а какой налог за 2027?",
        "my wife mixed it up. what number did i give you? what are the holidays in latvia?",
    ],
)
def test_a_second_question_or_a_number_is_no_remark(message: str) -> None:
    assert classify_history_question(message) is None, message


@pytest.mark.parametrize(
    ("remark", "asks"),
    [
        ("show me the electricity prices", True),
        ("please show me the electricity prices", True),
        ("palun näita homseid hindu", True),
        ("покажи налог", True),
        ("kirjutasin selle üles aga ei leia paberit", False),
        ("naine ütleb et ajasin segi", False),
        ("жена говорит, я перепутал", False),
    ],
)
def test_an_order_opens_its_sentence(remark: str, asks: bool) -> None:
    assert _remark_asks(remark) is asks


HISTORY = [
    PriorMessage("user", "when are the spring holidays?"),
    PriorMessage("assistant", "School holidays — Estonia:\n• Spring holidays — 24 Apr 2028 – 30 Apr 2028"),
    PriorMessage("user", "how long is a passport valid?"),
    PriorMessage("assistant", "An adult's passport is valid for 10 years."),
]


@pytest.mark.parametrize(
    ("message", "lang"),
    [
        ("remind me what you said about the holidays", "en"),
        ("tuleta meelde, mida sa vaheaegade kohta ütlesid", "et"),
        ("напомни, что ты мне сказал про каникулы?", "ru"),
    ],
)
def test_what_was_said_about_a_topic_is_the_answer_on_it(message: str, lang: str) -> None:
    asked = classify_history_question(message)
    assert asked is not None and asked.kind is HistoryQuestion.LAST_ANSWER and asked.about
    history = [
        PriorMessage("user", "каникулы весной?" if lang == "ru" else HISTORY[0].content),
        PriorMessage(
            "assistant",
            {"en": HISTORY[1].content, "et": "Koolivaheajad — Eesti", "ru": "Школьные каникулы — Эстония"}[
                lang
            ],
        ),
        *HISTORY[2:],
    ]
    reply = recap(asked, history, lang)
    assert "10 years" not in reply and any(w in reply for w in ("holidays", "Koolivaheajad", "каникулы"))


def test_without_a_topic_the_last_answer_is_repeated() -> None:
    asked = classify_history_question("what did you just say?")
    assert asked is not None and asked.kind is HistoryQuestion.LAST_ANSWER and not asked.about
    assert "10 years" in recap(asked, HISTORY, "en")


@pytest.mark.parametrize("pattern", ["a? ", "what did i ask? ", "kohta ", "про каникулы "])
def test_a_long_message_costs_bounded_time(pattern: str) -> None:
    import time

    text = pattern * (100_000 // len(pattern))
    started = time.perf_counter()
    classify_history_question(text)
    assert time.perf_counter() - started < 5.0
