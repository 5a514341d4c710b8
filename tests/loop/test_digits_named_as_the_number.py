"""Digits named as the application number though it has letters too ("status of
application no 55", "taotluse nr 55", "номер заявки 55, проверь") are explained with the
expected form at the question, in the citizen's language, never asked for again in the
same words; "no" opening a reply ("no, 5 please") names no number."""

from __future__ import annotations

import pytest

from loop_svc.extraction import RuleExtractor
from loop_svc.extraction.identifiers import attempted_identifier, shape_of_pattern
from loop_svc.loop import NeedsInput, TurnLoop
from loop_svc.schema import EndpointSpec, ParamSpec

PATTERN = "^[A-Z]{1,3}[0-9]{5,10}$"
DESCRIPTION = "The application number (e.g. A1234567)"
NAMED = {
    "en": ["status of application no 55", "check application no. 1234", "application number 77 status"],
    "et": ["taotluse nr 55 staatus", "kontrolli taotlust number 1234", "mis seis on taotlusel nr 77"],
    "ru": ["номер заявки 55, проверь", "статус заявления номер 1234", "проверь заявку № 77"],
}
FORM = {"en": "5–10 digits", "et": "5–10 numbrit", "ru": "5–10 цифр"}


@pytest.mark.parametrize(("lang", "message"), [(lang, m) for lang, ms in NAMED.items() for m in ms])
def test_digits_named_as_the_number_are_explained_with_its_form(
    extractor: RuleExtractor, lang: str, message: str
) -> None:
    param = ParamSpec(
        name="applicationNumber", type="string", required=True, pattern=PATTERN, description=DESCRIPTION
    )
    loop = TurnLoop(extractor)
    session = loop.new_session(
        "c", [EndpointSpec(name="status", params=[param])], language=lang, original_query=message
    )
    step = loop.advance(session, message)
    assert isinstance(step.result, NeedsInput)
    assert FORM[lang] in step.result.question, step.result.question


@pytest.mark.parametrize(
    "message", ["no, 5 please", "no 5", "is my passport ready? no idea", "no idea, 2026"]
)
def test_no_opening_a_reply_names_no_number(message: str) -> None:
    shape = shape_of_pattern(PATTERN, DESCRIPTION)
    assert shape is not None
    assert attempted_identifier(message, shape) is None
