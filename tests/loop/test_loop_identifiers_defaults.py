"""Identifiers shaped like the description's example, counts, defaults derived from a
parameter's description and type, invalid values explained at the question, and the
way out of a pending question."""

from __future__ import annotations

import string
from datetime import date

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from loop_svc.defaults import Defaults
from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.identifiers import amount_units, attempted_identifier, find_identifiers, shape_of
from loop_svc.loop import Abandoned, Complete, NeedsInput, TurnLoop
from loop_svc.schema import EndpointSpec, ParamSpec

TODAY = date(2026, 3, 10)
PLATE = ParamSpec(name="regNr", type="string", required=True, description="The plate number (e.g., 123ABC)")
APPLICATION = ParamSpec(
    name="applicationNumber",
    type="string",
    required=True,
    description="The application number (e.g. A1234567)",
)
# A catalogue the code has never seen: an invented code shape.
PARCEL = ParamSpec(name="parcel", type="string", required=True, description="Parcel code, for example AB12CD")
LOOK_ALIKES = dict(zip("ABEKMHOPCTYX", "АВЕКМНОРСТУХ", strict=True))


@settings(max_examples=80, deadline=None)
@given(
    digits=st.text(string.digits, min_size=3, max_size=3),
    letters=st.text("ABCDEFGHIJKLMNOPRSTUVXYZ", min_size=3, max_size=3),
    lower=st.booleans(),
    spaced=st.booleans(),
    cyrillic=st.booleans(),
    words=st.sampled_from(["car tax for {}", "palju on {} automaks", "налог на {} в этом году", "{}"]),
)
def test_a_plate_like_the_example_in_any_typing(
    countries: CountryNames, digits: str, letters: str, lower: bool, spaced: bool, cyrillic: bool, words: str
) -> None:
    # Written apart, digits and a currency code or unit are an amount ("500 EUR", "000 PCS"):
    # the amount test below.
    assume(not (spaced and letters in amount_units()))
    typed_letters = "".join(LOOK_ALIKES.get(c, c) for c in letters) if cyrillic else letters
    typed = f"{digits}{' ' if spaced else ''}{typed_letters.lower() if lower else typed_letters}"
    values = RuleExtractor(countries).extract(words.format(typed), [PLATE], language="en")
    assert values == {"regNr": f"{digits}{letters}"}


@settings(max_examples=60, deadline=None)
@given(prefix=st.text("ABCPTX", min_size=1, max_size=3), number=st.integers(10_000, 9_999_999))
def test_an_application_number_like_the_example(countries: CountryNames, prefix: str, number: int) -> None:
    text = f"is my id card ready? application {prefix.lower()}{number}"
    assert RuleExtractor(countries).extract(text, [APPLICATION], language="en") == {
        "applicationNumber": f"{prefix}{number}"
    }


@settings(max_examples=60, deadline=None)
@given(
    prefix=st.text("ABCPTX", min_size=1, max_size=2),
    number=st.integers(100_000, 99_999_999),
    lower=st.booleans(),
    before=st.sampled_from(["nr", "no", "is", "on", "number", "taotlus", "номер", "заявка", "my"]),
    sentence=st.sampled_from(
        ["status {}", "kus mu taotlus on, {}", "проверь {} пожалуйста", "{} kas valmis"]
    ),
)
def test_a_word_before_the_number_is_not_part_of_it(
    countries: CountryNames, prefix: str, number: int, lower: bool, before: str, sentence: str
) -> None:
    # "nr p98765432", "on P1111111": a word of letters is never joined to the number's prefix.
    typed = f"{prefix.lower() if lower else prefix}{number}"
    text = sentence.format(f"{before} {typed}")
    assert RuleExtractor(countries).extract(text, [APPLICATION], language="en") == {
        "applicationNumber": f"{prefix}{number}"
    }


@pytest.mark.parametrize(
    ("param", "message", "attempt"),
    [
        (PLATE, "my plate is 12AB, how much tax do i pay", "12AB"),
        (APPLICATION, "status of application XYZ", "XYZ"),
        (APPLICATION, "id application number a123, is it done", "a123"),
        (PARCEL, "where is parcel AB12", "AB12"),
    ],
)
def test_a_value_of_the_wrong_shape_is_explained_with_the_expected_form(
    extractor: RuleExtractor, param: ParamSpec, message: str, attempt: str
) -> None:
    loop = TurnLoop(extractor)
    endpoint = EndpointSpec(name="lookup", params=[param])
    session = loop.new_session("c", [endpoint], language="en", original_query=message)
    step = loop.advance(session, message)
    assert isinstance(step.result, NeedsInput)
    shape = shape_of(param.description)
    assert shape is not None
    assert attempt in step.result.question and shape.example in step.result.question
    # The same in Estonian and Russian, with the form in words.
    for lang, word in (("et", "nt"), ("ru", "например")):
        session = loop.new_session("c", [endpoint], language=lang, original_query=message)
        question = loop.advance(session, message).result
        assert (
            isinstance(question, NeedsInput)
            and word in question.question
            and shape.example in question.question
        )


def test_an_invented_shape_is_read_from_its_description(extractor: RuleExtractor) -> None:
    assert extractor.extract("track parcel xy34zq please", [PARCEL], language="en") == {"parcel": "XY34ZQ"}


COUNT = ParamSpec(
    name="limit", type="integer", description="How many of the most recent votings to return (1-100)"
)


@pytest.mark.parametrize(
    ("message", "language", "count"),
    [
        ("last 3 votings", "en", "3"),
        ("the 2 most recent votes", "en", "2"),
        ("first five results", "en", "5"),
        ("viimased 3 hääletust", "et", "3"),
        ("näita 7 viimast", "et", "7"),
        ("покажи 5 последних голосований", "ru", "5"),
        ("последние три голосования", "ru", "3"),
    ],
)
def test_counts_next_to_an_order_word(
    extractor: RuleExtractor, message: str, language: str, count: str
) -> None:
    assert extractor.extract(message, [COUNT], language=language) == {"limit": count}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "template",
    [
        "was the {year} state budget passed?",
        "kas {year}. aasta riigieelarve võeti vastu",
        "приняли ли бюджет на {year} год?",
        "what was vote number {n} about",
        "mis oli hääletus nr {n}",
        "голосование № {n} чем кончилось",
        "how did the vote on bill {n} SE go",
        "kuidas hääletati eelnõu {n} üle",
        "как голосовали по законопроекту {n}",
    ],
)
@pytest.mark.parametrize(("year", "n"), [(2025, 412), (2026, 598), (2027, 392)])
def test_a_lone_number_that_names_a_year_or_a_thing_is_no_count(
    extractor: RuleExtractor, template: str, year: int, n: int
) -> None:
    """A year or an identifier in the question is no count of votings (it was sent as the
    limit, and the API refused 2026)."""
    assert extractor.extract(template.format(year=year, n=n), [COUNT], language="en") == {}


def test_defaults_come_from_the_description_and_type() -> None:
    defaults = Defaults(lambda: TODAY, "EE")
    country = ParamSpec(
        name="country", type="string", required=True, description="ISO code (e.g., EE for Estonia)"
    )
    elsewhere = ParamSpec(name="country", type="string", required=True, description="ISO code (e.g., DE)")
    tax_year = ParamSpec(
        name="year", type="integer", required=True, description="The year to calculate the tax for"
    )
    birth_year = ParamSpec(name="birthYear", type="integer", required=True, description="Year of birth")
    start = ParamSpec(
        name="from", type="date", required=True, description="Start of the school holiday search"
    )
    end = ParamSpec(name="to", type="date", required=True, description="End of the school holiday search")
    optional = ParamSpec(name="country2", type="string", description="ISO code (e.g., EE for Estonia)")
    assert defaults.fill([country, tax_year, start, end, optional], {}) == {
        "country": "EE",
        "year": "2026",
        "from": "2026-03-10",
        "to": "2027-03-10",
    }
    assert defaults.fill([elsewhere, birth_year], {}) == {}
    assert defaults.fill([country, tax_year], {"country": "LV", "year": "2027"}) == {}


def test_only_what_is_really_missing_is_asked(extractor: RuleExtractor) -> None:
    year = ParamSpec(
        name="calculationYear", type="integer", required=True, description="Tax year (e.g., 2026)"
    )
    loop = TurnLoop(extractor, defaults=Defaults(lambda: TODAY))
    endpoint = EndpointSpec(name="tax", params=[PLATE, year])
    step = loop.advance(loop.new_session("c", [endpoint], language="en", original_query="car tax"), "car tax")
    assert isinstance(step.result, NeedsInput) and step.result.missing == ["regNr"]
    assert step.session is not None
    done = loop.advance(step.session, "456 def")
    assert isinstance(done.result, Complete)
    assert done.result.calls[0].params == {"regNr": "456DEF", "calculationYear": "2026"}


@pytest.mark.parametrize(
    ("reply", "language"),
    [
        ("no", "en"),
        ("cancel", "en"),
        ("something else", "en"),
        ("ei", "et"),
        ("katkesta", "et"),
        ("midagi muud", "et"),
        ("нет", "ru"),
        ("нет, не надо", "ru"),
        ("отмена", "ru"),
    ],
)
def test_every_pending_question_has_a_way_out(extractor: RuleExtractor, reply: str, language: str) -> None:
    loop = TurnLoop(extractor)
    endpoint = EndpointSpec(name="tax", params=[PLATE])
    step = loop.advance(loop.new_session("c", [endpoint], language=language, original_query="tax"), "tax")  # type: ignore[arg-type]
    assert isinstance(step.result, NeedsInput) and step.session is not None
    out = loop.advance(step.session, reply)
    assert isinstance(out.result, Abandoned) and out.result.reason == "cancelled"
    assert out.session is None and out.result.reply


@pytest.mark.parametrize(
    ("reply", "language"),
    [("I don't know", "en"), ("no idea", "en"), ("ei tea", "et"), ("ei tean", "et"), ("не знаю", "ru")],
)
def test_i_dont_know_keeps_the_question_in_every_language(
    extractor: RuleExtractor, reply: str, language: str
) -> None:
    """Not knowing is no refusal: the question stays until the continuation prompt."""
    loop = TurnLoop(extractor)
    endpoint = EndpointSpec(name="tax", params=[PLATE])
    step = loop.advance(loop.new_session("c", [endpoint], language=language, original_query="tax"), "tax")  # type: ignore[arg-type]
    assert step.session is not None
    out = loop.advance(step.session, reply)
    assert isinstance(out.result, NeedsInput) and out.result.missing == ["regNr"]


WINDOW = [
    ParamSpec(name="start", type="datetime", required=True, description="Start of the period (ISO 8601)"),
    ParamSpec(
        name="end",
        type="datetime",
        required=True,
        description="End of the period, at most 7 days after start",
    ),
]


@pytest.mark.parametrize(
    ("message", "language", "said"),
    [
        ("prices for the whole of december", "en", "7 days"),
        ("näita elektri hinda terve detsembri kohta", "et", "7 päeva"),
        ("цены за весь декабрь", "ru", "7 дней"),
    ],
)
def test_a_window_longer_than_the_api_serves_is_explained_and_the_nearest_offered(
    countries: CountryNames, message: str, language: str, said: str
) -> None:
    extractor = RuleExtractor(countries, today=lambda: date(2026, 12, 1))
    loop = TurnLoop(extractor)
    endpoint = EndpointSpec(name="prices", params=WINDOW)
    step = loop.advance(loop.new_session("c", [endpoint], language=language, original_query=message), message)  # type: ignore[arg-type]
    assert isinstance(step.result, NeedsInput) and said in step.result.question
    assert "YYYY" not in step.result.question and "AAAA" not in step.result.question
    assert step.session is not None
    accepted = loop.advance(step.session, {"en": "yes", "et": "jah", "ru": "да"}[language])
    assert isinstance(accepted.result, Complete)
    assert accepted.result.calls[0].params == {"start": "2026-12-01T00:00:00Z", "end": "2026-12-07T23:59:59Z"}


def test_a_count_past_the_documented_range_is_brought_to_it_and_said(extractor: RuleExtractor) -> None:
    loop = TurnLoop(extractor)
    endpoint = EndpointSpec(name="votings", params=[COUNT])
    step = loop.advance(
        loop.new_session("c", [endpoint], language="en", original_query="x"), "show me 200 votings"
    )
    assert isinstance(step.result, Complete) and step.result.calls[0].params == {"limit": "100"}
    assert "100" in step.result.notes[0] and "200" in step.result.notes[0]


def test_a_refused_value_is_followed_by_what_the_service_takes() -> None:
    """The caller explains the refusal from the API's error; the loop then offers what
    the service takes instead, or asks for the value again."""
    from loop_svc import questions

    country = ParamSpec(
        name="countryIsoCode", type="string", required=True, description="ISO code (e.g., EE for Estonia)"
    )
    year = ParamSpec(
        name="calculationYear", type="integer", required=True, description="The tax year (e.g., 2026)"
    )
    assert questions.available_values(country, "FI", '{"errors": {"countryIsoCode": ["not supported"]}}') == [
        "EE"
    ]
    refused = "The country 'SE' is not supported. Supported countries: FI, EE."
    listed = '{"errors": {"countryIsoCode": ["' + refused + '"]}}'
    assert questions.available_values(country, "SE", listed) == ["EE", "FI"]  # the example first
    assert questions.available_values(year, "2024", '{"detail": "The tax applies from 2025."}') == ["2025"]
    for lang, name in (("en", "Estonia"), ("et", "Eesti"), ("ru", "Эстония")):
        text = questions.after_refusal([country], {"countryIsoCode": ["EE"]}, lang)  # type: ignore[arg-type]
        assert name in text and "did not accept" not in text
        asked = questions.after_refusal([country], {"countryIsoCode": []}, lang)  # type: ignore[arg-type]
        assert asked == questions.clarifying_question([country], lang)  # type: ignore[arg-type]


# Digits written as the number of an identifier that has letters: after a number sign or
# word, or groups joined by a dash. Marks × digits × three languages.
NUMBER_MARKS = {
    "en": ["application status #{}", "my application number is {}", "status of application no. {}"],
    "et": ["taotluse nr {} staatus", "minu taotluse number on {}", "taotlus #{} mis seis"],
    "ru": ["номер заявления {}, что с ним", "статус заявки № {}", "мой номер {} готов?"],
}


@settings(max_examples=40, deadline=None)
@given(
    lang=st.sampled_from(sorted(NUMBER_MARKS)),
    template=st.integers(0, 2),
    digits=st.lists(st.integers(1, 9999), min_size=1, max_size=2),
)
@example(lang="et", template=2, digits=[1900])  # a number named so, though year-shaped
@example(lang="ru", template=1, digits=[2026])
def test_digits_given_as_the_number_are_explained_with_the_expected_form(
    countries: CountryNames, lang: str, template: int, digits: list[int]
) -> None:
    number = "-".join(str(d) for d in digits)
    message = NUMBER_MARKS[lang][template].format(number)
    found = RuleExtractor(countries, today=lambda: TODAY).problems(message, [APPLICATION], values={})
    assert found == {"applicationNumber": number}, message


@pytest.mark.parametrize(
    "message",
    [
        "vehicle tax for 2025-2026",
        "status for 2026-01-01",
        "the 3 latest votes",
        "status of application A1234567",
    ],
)
def test_years_dates_counts_and_good_numbers_are_no_attempt(extractor: RuleExtractor, message: str) -> None:
    values = extractor.extract(message, [APPLICATION], language="en")
    assert extractor.problems(message, [APPLICATION], values=values) == {}


def test_a_plate_takes_digits_after_its_number_word_too(extractor: RuleExtractor) -> None:
    # A plate has letters as well: "number 12" is no plate, and is explained.
    assert extractor.problems("tax for plate number 12", [PLATE], values={}) == {"regNr": "12"}


def test_the_number_pattern_is_linear_on_a_long_message(extractor: RuleExtractor) -> None:
    # No nested quantifiers: a 100,000-character message is read at once.
    message = "#" + "1" * 50_000 + " номер " + "-1" * 25_000
    extractor.problems(message, [APPLICATION], values={})


# An amount beside a plate: a number with a currency or unit, in either order and case,
# is never read as the plate written with a space ("500 eur" is no plate 500EUR). (A number
# before an ordinary three-letter word, "100 car", still is: not handled yet.)
AMOUNT_TEMPLATES = {
    "en": "will I pay over {amount} in car tax for {plate} this year",
    "et": "kas {plate} maks on üle {amount}",
    "ru": "налог для {plate} больше {amount}?",
}


@settings(max_examples=60, deadline=None)
@given(
    lang=st.sampled_from(sorted(AMOUNT_TEMPLATES)),
    number=st.integers(100, 999),
    unit=st.sampled_from(["eur", "EUR", "usd", "SEK", "kwh", "km", "kg"]),
    unit_first=st.booleans(),
    with_plate=st.booleans(),
)
def test_an_amount_with_a_currency_or_unit_is_no_plate(
    lang: str, number: int, unit: str, unit_first: bool, with_plate: bool
) -> None:
    shape = shape_of("Registration number (e.g., 123ABC)")
    assert shape is not None
    amount = f"{unit} {number}" if unit_first else f"{number} {unit}"
    plate = "611KUU" if with_plate else "it"
    message = AMOUNT_TEMPLATES[lang].format(amount=amount, plate=plate)
    assert [f.value for f in find_identifiers(message, shape)] == (["611KUU"] if with_plate else []), message
    assert attempted_identifier(message, shape) is None, message
