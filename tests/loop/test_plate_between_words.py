"""A number written between two words of letters ("ABC 123 pls", "tax 123 ABC") is read
with the side typed in capitals: a plate typed letters first is explained with the
expected form, never read with the word after it as "123PLS"."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.identifiers import amount_units, attempted_identifier, shape_of
from loop_svc.loop import NeedsInput, TurnLoop
from loop_svc.schema import EndpointSpec, ParamSpec

PLATE = ParamSpec(name="regNr", type="string", required=True, description="The plate number (e.g., 123ABC)")
SHAPE = shape_of(PLATE.description)
CAPITALS = st.text("ABCDEFGHJKLMNPRSTVXYZ", min_size=3, max_size=3).filter(lambda s: s not in amount_units())
DIGITS = st.text(string.digits, min_size=3, max_size=3)
# Words typed in lower case after or before the number, in the three languages (Latin letters).
LOWER_WORDS = st.sampled_from(["pls", "please", "thx", "palun", "ka", "nt", "spasibo", "pozhalujsta", "ok"])
OPENINGS = st.sampled_from(["tax for my car", "mu auto maks", "nalog za mashinu", "car tax", ""])


@settings(max_examples=80, deadline=None)
@given(opening=OPENINGS, letters=CAPITALS, digits=DIGITS, word=LOWER_WORDS)
def test_capitals_before_the_number_are_a_plate_typed_the_wrong_way_round(
    countries: CountryNames, opening: str, letters: str, digits: str, word: str
) -> None:
    text = f"{opening} {letters} {digits} {word}".strip()
    assert RuleExtractor(countries).extract(text, [PLATE], language="en") == {}
    assert SHAPE is not None
    assert attempted_identifier(text, SHAPE) == f"{letters} {digits}"


@settings(max_examples=80, deadline=None)
@given(opening=OPENINGS, letters=CAPITALS, digits=DIGITS, word=LOWER_WORDS)
def test_capitals_after_the_number_are_the_plate(
    countries: CountryNames, opening: str, letters: str, digits: str, word: str
) -> None:
    text = f"{opening} {word} {digits} {letters}".strip()
    assert RuleExtractor(countries).extract(text, [PLATE], language="en") == {"regNr": f"{digits}{letters}"}


@settings(max_examples=40, deadline=None)
@given(letters=CAPITALS.map(str.lower), digits=DIGITS)
def test_alike_sides_keep_the_reading_after_the_number(
    countries: CountryNames, letters: str, digits: str
) -> None:
    # "car tax 123 abc": no side in capitals, the number and the letters after it.
    text = f"car tax {digits} {letters}"
    expected = {"regNr": f"{digits}{letters.upper()}"}
    assert RuleExtractor(countries).extract(text, [PLATE], language="en") == expected


def test_the_question_names_the_expected_form_in_each_language(countries: CountryNames) -> None:
    loop = TurnLoop(RuleExtractor(countries))
    endpoint = EndpointSpec(name="tax", params=[PLATE])
    for lang, message, word in (
        ("en", "tax for my car XYZ 123 pls", "e.g."),
        ("et", "mu auto maks XYZ 123 palun", "nt"),
        ("ru", "налог на машину XYZ 123 spasibo", "например"),
    ):
        session = loop.new_session("c", [endpoint], language=lang, original_query=message)
        step = loop.advance(session, message)
        assert isinstance(step.result, NeedsInput), lang
        question = step.result.question
        assert "XYZ 123" in question and "123ABC" in question and word in question


def test_a_long_text_of_the_pattern_is_read_in_bounded_time(countries: CountryNames) -> None:
    import time

    text = "ABC 123 pls " * 9_000  # ≈ 100k characters
    started = time.perf_counter()
    RuleExtractor(countries).extract(text, [PLATE], language="en")
    assert time.perf_counter() - started < 20
