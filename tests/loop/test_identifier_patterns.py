"""A parameter's declared pattern (OpenAPI `schema.pattern`) shapes how its value is read
and how its expected form is said: the API's own lengths ("5–10 digits"), not lengths
guessed around the description's example. A pattern of another kind is left to the API."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import RuleExtractor
from loop_svc.extraction.identifiers import describe, shape_of_pattern
from loop_svc.loop import NeedsInput, TurnLoop
from loop_svc.schema import EndpointSpec, ParamSpec


@st.composite
def patterns(draw: st.DrawFn) -> str:
    """A pattern of two or three alternating runs of letters and digits with lengths."""
    first_letters = draw(st.booleans())
    parts = []
    for i in range(draw(st.integers(2, 3))):
        letters = first_letters if i % 2 == 0 else not first_letters
        low = draw(st.integers(1, 4))
        high = draw(st.integers(low, low + 4))
        kind = (
            draw(st.sampled_from(["[A-Z]", "[A-Za-z]"]))
            if letters
            else draw(st.sampled_from([r"\d", "[0-9]"]))
        )
        quantifier = f"{{{low}}}" if low == high else f"{{{low},{high}}}"
        parts.append(kind + quantifier)
    return "^" + "".join(parts) + "$"


@settings(max_examples=150, deadline=None)
@given(
    pattern=patterns(), token=st.text(string.ascii_uppercase[:6] + string.digits[:6], min_size=1, max_size=14)
)
def test_a_declared_pattern_accepts_exactly_what_the_pattern_accepts(pattern: str, token: str) -> None:
    shape = shape_of_pattern(pattern)
    assert shape is not None
    assert shape.matches(token) is bool(re.fullmatch(pattern, token))
    # Its example is one the API would take.
    assert re.fullmatch(pattern, shape.example.upper() if shape.upper else shape.example)


@pytest.mark.parametrize(
    ("lang", "form"),
    [
        ("en", "1–3 letters and 5–10 digits, e.g. A1234567"),
        ("et", "1–3 tähte ja 5–10 numbrit, nt A1234567"),
        ("ru", "1–3 буквы и 5–10 цифр, например A1234567"),
    ],
)
def test_the_expected_form_is_said_with_the_declared_lengths(lang: str, form: str) -> None:
    shape = shape_of_pattern("^[A-Z]{1,3}[0-9]{5,10}$", "The application number (e.g. A1234567)")
    assert shape is not None and describe(shape, lang) == form


@pytest.mark.parametrize("pattern", ["^([A-Z]{1,3})?(\\d{5,10})$", "^[a-z]+$", "^(foo|bar)$", "^\\d{4}$", ""])
def test_a_pattern_of_another_kind_is_not_used_for_reading(pattern: str) -> None:
    assert shape_of_pattern(pattern) is None
    param = ParamSpec(
        name="applicationNumber", type="string", pattern=pattern, description="The number (e.g. A1234567)"
    )
    # The example's guess stays.
    assert param.shape is not None and param.shape.example == "A1234567"


@pytest.mark.parametrize(
    ("message", "attempt"), [("status of ID123", "ID123"), ("is ABCD12345 ready", "ABCD12345")]
)
def test_a_number_outside_the_declared_lengths_is_explained_with_them(
    extractor: RuleExtractor, message: str, attempt: str
) -> None:
    param = ParamSpec(
        name="applicationNumber",
        type="string",
        required=True,
        pattern="^[A-Z]{1,3}[0-9]{5,10}$",
        description="The application number (e.g. A1234567)",
    )
    loop = TurnLoop(extractor)
    session = loop.new_session(
        "c", [EndpointSpec(name="status", params=[param])], language="en", original_query=message
    )
    step = loop.advance(session, message)
    assert isinstance(step.result, NeedsInput)
    assert attempt in step.result.question and "5–10 digits" in step.result.question
