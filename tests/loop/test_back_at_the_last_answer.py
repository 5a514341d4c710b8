"""Messages that point back at the last answer: a short why-question is a question about
that result; a new value said of "it/see/это" within eight words updates the last call;
the English "one" standing for a noun counts nothing; what an amount is made of asks its
parts; yes/no forms without an auxiliary ("неужели …?", "это X?", "… ready?"); a town
alone in a question about the register's addresses; a correction of the town wrapped in
apologies and affirmations."""

from __future__ import annotations

from datetime import date

import pytest

from devtools.demo_apis.vehicle_tax import vehicle_tax
from loop_svc.cache import LastCallContext
from loop_svc.extraction import RuleExtractor
from loop_svc.extraction.addresses import corrected_town
from loop_svc.extraction.values import number_words
from loop_svc.follow_up import FollowUpKind, RuleFollowUpDetector
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Kind
from services.result_sketch import sketch_of

TAX = EndpointSpec(
    name="get_vehicle_tax_info",
    params=[
        ParamSpec(name="regNr", type="string", required=True, description="The plate (e.g., 123ABC)"),
        ParamSpec(
            name="calculationYear", type="integer", required=True, description="The tax year (e.g., 2026)"
        ),
    ],
)
SHAPES = RuleShapeReader(lambda: date(2027, 11, 4))
ADDRESS = ParamSpec(
    name="address",
    type="string",
    required=True,
    description="The address to look up, street and house number with town (e.g., Viru tn 4, Tallinn)",
)


def _detect(extractor: RuleExtractor, message: str, language: str):  # type: ignore[no-untyped-def]
    context = LastCallContext(
        api_name=TAX.name,
        endpoint=TAX,
        collected_params={"regNr": "555KLM", "calculationYear": "2027"},
        sketch=sketch_of(vehicle_tax("555KLM", 2027)),
    )
    return RuleFollowUpDetector(extractor, SHAPES).detect(message, [context], language)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "why is it less?"),
        ("en", "and why so much"),
        ("en", "how come it is cheaper now?"),
        ("et", "miks see nii väike on?"),
        ("et", "aga miks vähem?"),
        ("ru", "почему так мало?"),
        ("ru", "а почему дешевле стало?"),
    ],
)
def test_a_short_why_question_is_about_the_last_result(
    extractor: RuleExtractor, language: str, message: str
) -> None:
    assert _detect(extractor, message, language).kind is FollowUpKind.RESPONSE_QUESTION


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "what did it cost in 2026 then"),
        ("en", "how much was that one in 2026?"),
        ("et", "palju see 2026 aastal maksis?"),
        ("ru", "а сколько он стоил в 2026 году?"),
        ("ru", "сколько это было бы в 2026 году"),
    ],
)
def test_a_new_value_said_of_the_last_answer_updates_its_call(
    extractor: RuleExtractor, language: str, message: str
) -> None:
    found = _detect(extractor, message, language)
    assert found.kind is FollowUpKind.PARAM_UPDATE
    assert found.updated_params == {"calculationYear": "2026"}


@pytest.mark.parametrize(
    ("message", "counts"),
    [
        ("and the income tax one?", []),
        ("the weapons act one please?", []),
        ("which one, and when", []),
        ("the last one", ["1"]),
        ("show me one vote", ["1"]),
        ("give me one", ["1"]),
    ],
)
def test_the_one_that_stands_for_a_noun_counts_nothing(message: str, counts: list[str]) -> None:
    assert [f.value for f in number_words(message)] == counts


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "what is the total for 555KLM made up of?"),
        ("en", "break down the sum for 555KLM"),
        ("et", "millest 555KLM maksu summa koosneb?"),
        ("ru", "из чего складывается сумма налога за 555KLM?"),
        ("ru", "на что разбивается итого, по частям"),
    ],
)
def test_what_an_amount_is_made_of_asks_its_parts_not_their_sum(language: str, message: str) -> None:
    assert SHAPES.read(message, language).aggregation is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("ru", "неужели за электромобиль надо платить налог?"),
        ("ru", "разве 042TLN тоже платит?"),
        ("ru", "Akadeemia tee 3 — это Мустамяэ?"),
        ("ru", "Viru 4 это Кесклинн?"),
        ("en", "EE7788990 ready?"),
        ("en", "my application done yet?"),
        ("en", "bill 612 passed?"),
    ],
)
def test_yes_no_questions_without_an_auxiliary(language: str, message: str) -> None:
    assert SHAPES.read(message, language).kind is Kind.YES_NO  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "message"),
    [("ru", "что это такое?"), ("en", "what is ready?"), ("ru", "сколько надо платить за 123ABC?")],
)
def test_a_question_word_keeps_them_open_questions(language: str, message: str) -> None:
    assert SHAPES.read(message, language).kind is not Kind.YES_NO  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "message", "town"),
    [
        ("en", "give me two addresses from tartu in your register", "Tartu"),
        ("en", "show three addresses of narva", "Narva"),
        ("et", "kõik pärnu aadressid mis teil on", "Pärnu"),
        ("et", "näita tartu aadresse", "Tartu"),
        ("ru", "назови три адреса в Тарту из вашего реестра", "Tartu"),
    ],
)
def test_a_town_alone_in_a_question_about_the_registers_addresses(
    extractor: RuleExtractor, language: str, message: str, town: str
) -> None:
    assert extractor.extract(message, [ADDRESS], language=language) == {"address": town}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "rest", "town"),
    [
        ("et", "jah, vabandust, pärnus muidugi", "pärnu"),
        ("en", "sorry, yes, in tartu", "tartu"),
        ("ru", "да, извините, в тарту конечно", "tartu"),
    ],
)
def test_a_town_correction_wrapped_in_apologies(language: str, rest: str, town: str) -> None:
    assert corrected_town(rest, language) == town


VOTINGS = EndpointSpec(
    name="get_parliament_votings",
    params=[ParamSpec(name="limit", type="integer", description="How many votings to return (1-100)")],
)


@pytest.mark.parametrize(
    ("language", "message"), [("en", "ok 100 then"), ("et", "olgu, 100 siis"), ("ru", "ну давай 100")]
)
def test_a_count_the_call_already_has_asked_again_is_the_same_call(
    extractor: RuleExtractor, language: str, message: str
) -> None:
    from devtools.demo_apis.votings import recent_votings

    context = LastCallContext(
        api_name=VOTINGS.name,
        endpoint=VOTINGS,
        collected_params={"limit": "100"},
        sketch=sketch_of(recent_votings(16)),
    )
    found = RuleFollowUpDetector(extractor, SHAPES).detect(message, [context], language)  # type: ignore[arg-type]
    assert found.kind is FollowUpKind.PARAM_UPDATE and found.updated_params == {"limit": "100"}


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("et", "näita riigikogu viimaseid hääletusi"),
        ("et", "näita järgmisi riigipühi"),
        ("ru", "покажи последние голосования"),
        ("en", "show the latest votes"),
    ],
)
def test_a_plural_cue_picks_no_single_row(language: str, message: str) -> None:
    assert SHAPES.read(message, language).selection is None  # type: ignore[arg-type]
