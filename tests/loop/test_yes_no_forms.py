"""Yes/no questions in the forms citizens write them, generated per language: a
statement closed by a confirming tag ("…, right?", "…, eks?", "…, правильно?"), and a
question followed by a sentence that only says why ("…under 40 €? I want to charge the
car then"). Their wh-questions with the same tails stay what they are."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Kind

READER = RuleShapeReader(lambda: date(2026, 12, 2), lambda: datetime(2026, 12, 2, 10, 0))
STATEMENTS = {
    "en": [
        "the postal code of raekoja plats 1 is 51004",
        "electricity is cheaper tomorrow",
        "spring break starts on 26 april",
    ],
    "et": [
        "raekoja plats 1 postiindeks on 51004",
        "homme on elekter odavam",
        "kevadvaheaeg algab 26. aprillil",
    ],
    "ru": [
        "индекс у raekoja plats 1 это 51004",
        "завтра электричество дешевле",
        "весенние каникулы начинаются 26 апреля",
    ],
}
TAGS = {
    "en": [", right?", ", correct?", " is that right?"],
    "et": [", eks?", ", onju?", " õige?"],
    "ru": [", правильно?", ", верно?", " да?"],
}
QUESTIONS = {
    "en": ["will the price be under 40 tomorrow at 3am?", "is 24 december a holiday in finland?"],
    "et": ["kas homme kell 3 on hind alla 40?", "kas 24. detsember on soomes püha?"],
    "ru": ["завтра в 3 ночи цена будет ниже 40?", "24 декабря в финляндии выходной ли?"],
}
REASONS = {
    "en": " i want to charge the car then",
    "et": " tahan siis auto laadida",
    "ru": " хочу поставить зарядку на это время",
}
WH = {
    "en": "what is the cheapest hour tomorrow?",
    "et": "mis kell on homme elekter kõige odavam?",
    "ru": "когда завтра электричество дешевле всего?",
}


@pytest.mark.parametrize(
    ("lang", "message"),
    [(lang, s + t) for lang in STATEMENTS for s in STATEMENTS[lang] for t in TAGS[lang]],
)
def test_a_statement_with_a_confirming_tag_is_yes_no(lang: str, message: str) -> None:
    assert READER.read(message, lang).kind is Kind.YES_NO, message  # type: ignore[arg-type]


@pytest.mark.parametrize(("lang", "message"), [(lang, q) for lang in QUESTIONS for q in QUESTIONS[lang]])
def test_a_yes_no_question_stays_one_with_a_reason_after_it(lang: str, message: str) -> None:
    assert READER.read(message, lang).kind is Kind.YES_NO  # type: ignore[arg-type]
    assert READER.read(message + REASONS[lang], lang).kind is Kind.YES_NO, message  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_a_wh_question_with_a_reason_after_it_is_no_yes_no(lang: str) -> None:
    assert READER.read(WH[lang] + REASONS[lang], lang).kind is not Kind.YES_NO  # type: ignore[arg-type]
