"""Two classes of follow-up and value reading (en/et/ru):

- a year named relatively ("next year", "järgmisel aastal", "в следующем году") is a
  year parameter's value, and a year that is asked for ("in 2026", "за 2027 год",
  "2027. aastal") wins over one that only describes a thing ("a 2010 car", "2010 года
  выпуска", "first registered 2009");
- a correction of the last request ("sorry, I mean …", "oot, vale number …", "ой, не
  тот номер …") gives the last call new values even when it is longer than a short
  follow-up, and the value after "not" ("не в четверг, а в пятницу") is the one left out.
"""

from __future__ import annotations

from datetime import date

import pytest

from loop_svc.cache import LastCallContext
from loop_svc.extraction import RuleExtractor
from loop_svc.follow_up import FollowUpKind, RuleFollowUpDetector
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Function, Weekdays

# conftest's today is 2026-03-10
NEXT, THIS, LAST = "2027", "2026", "2025"

RELATIVE_YEARS = [
    ("en", "next year", NEXT),
    ("en", "the coming year", NEXT),
    ("en", "this year", THIS),
    ("en", "last year", LAST),
    ("et", "järgmisel aastal", NEXT),
    ("et", "jargmine aasta", NEXT),
    ("et", "eelmisel aastal", LAST),
    ("ru", "в следующем году", NEXT),
    ("ru", "в этом году", THIS),
    ("ru", "в прошлом году", LAST),
]
SENTENCES = {
    "en": ["how much car tax for 123ABC {y}?", "and {y}?", "123abc tax {y} please"],
    "et": ["palju on 123ABC maks {y}?", "aga {y}?", "123 abc automaks {y}"],
    "ru": ["сколько налог на 123ABC {y}?", "а {y}?", "налог 123abc {y} сколько будет"],
}


@pytest.mark.parametrize(("language", "phrase", "year"), RELATIVE_YEARS)
def test_a_year_named_relatively_is_the_year_asked(
    extractor: RuleExtractor, vehicle_tax: EndpointSpec, language: str, phrase: str, year: str
) -> None:
    for sentence in SENTENCES[language]:
        found = extractor.extract(sentence.format(y=phrase), vehicle_tax.params, language=language)  # type: ignore[arg-type]
        assert found.get("calculationYear") == year, sentence


@pytest.mark.parametrize(
    ("language", "message", "year"),
    [
        ("en", "my 2010 toyota, plate 618GHT, what will the tax be next year", NEXT),
        ("en", "first registered 2009, plate 618GHT, tax for 2026?", THIS),
        ("en", "plate 618GHT registered in 2012, how much in 2027", NEXT),
        ("et", "auto on 2011. aasta oma, 618GHT, palju maksan 2026. aastal", THIS),
        ("et", "618GHT on aastast 2009, mis maks tuleb järgmisel aastal", NEXT),
        ("ru", "машина 2010 года выпуска, номер 618GHT, сколько платить в 2026 году", THIS),
        ("ru", "электромобиль 2012 года, 618GHT, налог за 2027 год", NEXT),
    ],
)
def test_a_year_asked_for_wins_over_a_year_that_describes_the_car(
    extractor: RuleExtractor, vehicle_tax: EndpointSpec, language: str, message: str, year: str
) -> None:
    found = extractor.extract(message, vehicle_tax.params, language=language)  # type: ignore[arg-type]
    assert found == {"regNr": "618GHT", "calculationYear": year}


def _tax_context(tax: EndpointSpec) -> LastCallContext:
    return LastCallContext(
        api_name=tax.name, endpoint=tax, collected_params={"regNr": "123ABC", "calculationYear": "2026"}
    )


@pytest.mark.parametrize(
    ("language", "message"),
    [("en", "and next year?"), ("et", "aga järgmisel aastal?"), ("ru", "а в следующем году сколько будет?")],
)
def test_and_next_year_updates_the_tax_year(
    extractor: RuleExtractor, vehicle_tax: EndpointSpec, language: str, message: str
) -> None:
    follow = RuleFollowUpDetector(extractor).detect(message, [_tax_context(vehicle_tax)], language)  # type: ignore[arg-type]
    assert follow.kind is FollowUpKind.PARAM_UPDATE
    assert follow.updated_params == {"calculationYear": NEXT}


@pytest.mark.parametrize(
    ("language", "message", "plate"),
    [
        ("en", "oops, wrong number, my car actually has 456 def", "456DEF"),
        ("en", "sorry i meant the other car, it is 745PLN", "745PLN"),
        ("et", "oot vale number, tegelikult on mul 634mkl", "634MKL"),
        ("et", "vabandust, ma mõtlesin hoopis numbrit 221 HGT", "221HGT"),
        ("ru", "ой, не тот номер, у меня на самом деле 101EES", "101EES"),
        ("ru", "извините, перепутал, номер машины 660 PLN", "660PLN"),
    ],
)
def test_a_longer_correction_gives_the_last_call_its_new_value(
    extractor: RuleExtractor, vehicle_tax: EndpointSpec, language: str, message: str, plate: str
) -> None:
    follow = RuleFollowUpDetector(extractor).detect(message, [_tax_context(vehicle_tax)], language)  # type: ignore[arg-type]
    assert follow.kind is FollowUpKind.PARAM_UPDATE
    assert follow.updated_params == {"regNr": plate}


PRICES = EndpointSpec(
    name="get_electricity_prices",
    params=[
        ParamSpec(
            name="start", type="datetime", required=True, description="Start of the period in ISO 8601"
        ),
        ParamSpec(name="end", type="datetime", required=True, description="End of the period in ISO 8601"),
    ],
)


@pytest.mark.parametrize(
    ("language", "message", "weekday"),
    [
        ("en", "sorry, not on thursday but on friday", 5),
        ("en", "no, friday not thursday", 5),
        ("et", "ei, mitte neljapäeval vaid reedel", 5),
        ("ru", "ой, не в четверг, а в пятницу", 5),
        ("ru", "нет, не четверг, пятница", 5),
        ("en", "oops, not on monday, on tuesday", 2),
        ("ru", "не во вторник, а в среду", 3),
    ],
)
def test_the_day_after_not_is_left_out(
    extractor: RuleExtractor, language: str, message: str, weekday: int
) -> None:
    found = extractor.extract(message, PRICES.params, language=language)  # type: ignore[arg-type]
    start = date.fromisoformat(found["start"][:10])
    end = date.fromisoformat(found["end"][:10])
    assert start == end  # one day (the fixture's extractor has no zone: UTC)
    assert end.isoweekday() == weekday
    shape = RuleShapeReader(lambda: date(2026, 12, 1)).read(message, language)  # type: ignore[arg-type]
    weekdays = [f for f in shape.filters if isinstance(f.condition, Weekdays)]
    assert [(f.condition, f.negate) for f in weekdays] == [(Weekdays((weekday,)), False)]


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "sorry i mean akadeemia tee 3"),
        ("en", "no, i mean the one in tartu"),
        ("ru", "а сколько будет?"),
    ],
)
def test_a_correction_or_how_much_is_no_aggregate(language: str, message: str) -> None:
    shape = RuleShapeReader(lambda: date(2026, 12, 1)).read(message, language)  # type: ignore[arg-type]
    assert shape.aggregation is None


def test_a_mean_and_a_count_are_still_read() -> None:
    reader = RuleShapeReader(lambda: date(2026, 12, 1))
    assert reader.read("what is the mean price tomorrow", "en").aggregation.function is Function.AVERAGE  # type: ignore[union-attr]
    assert reader.read("сколько будет праздников в мае", "ru").aggregation.function is Function.COUNT  # type: ignore[union-attr]


PLATE_SHAPE_DESCRIPTION = "The vehicle registration plate number (e.g., 123ABC)"


@pytest.mark.parametrize(
    ("message", "attempt"),
    [
        ("palju AB 1234 eest maksu tuleb maksta", "AB 1234"),
        ("у меня номер AB 1234, сколько платить?", "AB 1234"),
        ("what is the tax for XY 99", "XY 99"),
        ("maks autole 12 ABCD", None),  # four letters: no plate-like pair, and not the shape
        ("how much tax on 2026 for my car", None),  # a lower-case word and a year
    ],
)
def test_letters_and_digits_written_apart_in_the_wrong_form_are_an_attempt(
    message: str, attempt: str | None
) -> None:
    from loop_svc.extraction.identifiers import attempted_identifier, shape_of

    shape = shape_of(PLATE_SHAPE_DESCRIPTION)
    assert shape is not None
    assert attempted_identifier(message, shape) == attempt
