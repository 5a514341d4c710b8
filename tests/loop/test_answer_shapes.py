"""The shape reader (loop_svc.shapes) over generated questions: every count × cue ×
language, every month in its case forms, weekdays, clock windows, yes/no forms — and
arbitrary text, which must never break it. The grammar is the classes of words people
use, not the blind set's sentences."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.shapes import RuleShapeReader, for_param_update, for_response_question, for_session_reply
from services import answer_shape
from services.answer_shape import (
    Aggregation,
    AnswerShape,
    Comparison,
    DateRange,
    Function,
    Hours,
    Kind,
    Months,
    Op,
    Order,
    Weekdays,
)

TODAY = date(2026, 12, 1)
READER = RuleShapeReader(lambda: TODAY, lambda: datetime(2026, 12, 1, 10, 15))

COUNTS = {
    "en": {2: "two", 3: "three", 4: "four", 5: "five", 7: "7"},
    "et": {2: "kaks", 3: "kolm", 4: "neli", 5: "viis", 7: "7"},
    "ru": {2: "два", 3: "три", 4: "четыре", 5: "пять", 7: "7"},
}
# (language, pattern with {n}, order)
SELECTIONS = [
    ("en", "show me the last {n} votings", Order.LATEST),
    ("en", "the latest {n} results please", Order.LATEST),
    ("en", "next {n} public holidays in latvia", Order.NEXT),
    ("en", "what are the first {n} holidays next year", Order.FIRST),
    ("en", "the {n} cheapest hours tomorrow", Order.LOWEST),
    ("en", "{n} most expensive hours today", Order.HIGHEST),
    ("et", "näita {n} viimast hääletust", Order.LATEST),
    ("et", "järgmised {n} riigipüha", Order.NEXT),
    ("et", "{n} esimest riigipüha", Order.FIRST),
    ("et", "homme {n} kõige odavamat tundi", Order.LOWEST),
    ("et", "{n} kõige kallimat tundi", Order.HIGHEST),
    ("ru", "покажи последние {n} голосования", Order.LATEST),
    ("ru", "ближайшие {n} праздника", Order.NEXT),
    ("ru", "первые {n} праздника следующего года", Order.FIRST),
    ("ru", "{n} самых дешевых часа завтра", Order.LOWEST),
    ("ru", "{n} самых дорогих часа", Order.HIGHEST),
]


@pytest.mark.parametrize(("language", "pattern", "order"), SELECTIONS)
@pytest.mark.parametrize("n", [2, 3, 4, 5, 7])
def test_an_exact_count_from_its_end(language: str, pattern: str, order: Order, n: int) -> None:
    shape = READER.read(pattern.format(n=COUNTS[language][n]), language)  # type: ignore[arg-type]
    assert shape.selection is not None
    assert (shape.selection.order, shape.selection.count) == (order, n)
    assert shape.kind is Kind.COUNT


EXTREMES = [
    ("en", "cheapest hour tomorrow?", Order.LOWEST),
    ("en", "when is electricity the lowest", Order.LOWEST),
    ("en", "which hour is the most expensive", Order.HIGHEST),
    ("en", "which vote had the most votes against", Order.HIGHEST),
    ("en", "the longest school break", Order.LONGEST),
    ("en", "when is the next holiday", Order.NEXT),
    ("et", "millal on elekter kõige odavam", Order.LOWEST),
    ("et", "koige odavam tund homme", Order.LOWEST),
    ("et", "mis kell on madalaim hind", Order.LOWEST),
    ("et", "kõige kallim tund", Order.HIGHEST),
    ("et", "mis on kõige pikem koolivaheaeg", Order.LONGEST),
    ("et", "millal on järgmine riigipüha", Order.NEXT),
    ("ru", "когда самый дешевый час", Order.LOWEST),
    ("ru", "когда дешевле всего электричество", Order.LOWEST),
    ("ru", "самый дорогой час сегодня", Order.HIGHEST),
    ("ru", "какие каникулы самые длинные", Order.LONGEST),
    ("ru", "следующий праздник когда", Order.NEXT),
]


@pytest.mark.parametrize(("language", "text", "order"), EXTREMES)
def test_an_extreme(language: str, text: str, order: Order) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.selection is not None and shape.selection.order is order


# A count opened by a question word or article, with words between it and the extreme.
ASKED_COUNT_EXTREMES = [
    ("en", "which {n} of the latest 10 votes had the most votes against", Order.HIGHEST),
    ("en", "the {n} votes with the fewest votes against", Order.LOWEST),
    ("en", "what {n} hours tomorrow are the cheapest", Order.LOWEST),
    ("et", "millised {n} viimase 10 hääletuse seast said kõige rohkem vastuhääli", Order.HIGHEST),
    ("et", "mis {n} tundi on homme kõige odavamad", Order.LOWEST),
    ("ru", "какие {n} голосования из последних 10 набрали больше всего голосов против", Order.HIGHEST),
    ("ru", "какие {n} часа завтра самые дешевые", Order.LOWEST),
]


@pytest.mark.parametrize(("language", "pattern", "order"), ASKED_COUNT_EXTREMES)
@pytest.mark.parametrize("n", [2, 3, 4, 5, 7])
def test_an_extremes_count_opened_by_a_question_word(
    language: str, pattern: str, order: Order, n: int
) -> None:
    shape = READER.read(pattern.format(n=COUNTS[language][n]), language)  # type: ignore[arg-type]
    assert shape.selection is not None
    assert (shape.selection.order, shape.selection.count) == (order, n)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "next week"),
        ("en", "last weekend prices"),
        ("et", "järgmisel nädalal"),
        ("ru", "на следующей неделе"),
        ("en", "the latest votings"),
        ("et", "viimased hääletused"),
        ("ru", "последние голосования"),
    ],
)
def test_a_period_or_a_plural_is_no_selection(language: str, text: str) -> None:
    assert READER.read(text, language).selection is None  # type: ignore[arg-type]


# Nouns whose singular ends like a plural in one of the languages ("голосование",
# "заседание"), after a singular cue: the one row, from its end.
SINGULAR_CUES = {
    "en": (["last", "latest", "most recent", "newest"], ["vote", "voting", "holiday", "session"]),
    "et": (["viimane", "uusim", "kõige värskem"], ["hääletus", "riigipüha", "istung"]),
    "ru": (
        ["последнее", "последний", "самое свежее", "новейшее"],
        ["голосование", "заседание", "решение", "изменение"],
    ),
}


@pytest.mark.parametrize("language", ["en", "et", "ru"])
@pytest.mark.parametrize("frame", ["{cue} {noun}", "show the {cue} {noun}", "{cue} {noun} please"])
def test_a_singular_cue_is_the_one_latest_row(language: str, frame: str) -> None:
    cues, nouns = SINGULAR_CUES[language]
    for cue in cues:
        for noun in nouns:
            if language == "ru" and cue.endswith(("ий",)) and noun.endswith("ие"):
                continue  # no agreement: a masculine cue with a neuter noun is no Russian
            text = frame.replace("show the", {"en": "show the", "et": "näita", "ru": "покажи"}[language])
            shape = READER.read(text.format(cue=cue, noun=noun), language)  # type: ignore[arg-type]
            assert shape.selection is not None, (cue, noun)
            assert (shape.selection.order, shape.selection.count) == (Order.LATEST, 1), (cue, noun)


@pytest.mark.parametrize(
    "text",
    [
        "mis riigikogu viimati hääletas",
        "millal viimati riigikogus hääletati",
        "mida viimati otsustati",
        "mille üle viimati hääletati",
    ],
)
def test_last_time_as_an_adverb_is_the_one_latest_row(text: str) -> None:
    shape = READER.read(text, "et")
    assert shape.selection is not None
    assert (shape.selection.order, shape.selection.count) == (Order.LATEST, 1)


@pytest.mark.parametrize("lead", ["now", "and now", "ok now", "so now"])
@pytest.mark.parametrize(
    "rest",
    ["only the final votes among them", "just the first one", "the cheapest of those", "show all of them"],
)
def test_now_opening_a_message_names_no_hour(lead: str, rest: str) -> None:
    shape = READER.read(f"{lead} {rest}", "en")
    assert not any(isinstance(f.condition, Hours) for f in shape.filters)


@pytest.mark.parametrize(
    "text", ["what is the price now", "price right now", "now?", "how much is electricity now please"]
)
def test_now_as_the_time_is_the_current_hour(text: str) -> None:
    shape = READER.read(text, "en")
    assert [f.condition for f in shape.filters if isinstance(f.condition, Hours)] == [Hours(10, 11)]


AGGREGATES = [
    ("en", "average price tomorrow", Function.AVERAGE),
    ("en", "avg electricity price", Function.AVERAGE),
    ("en", "how many public holidays in december", Function.COUNT),
    ("en", "how long are the christmas holidays", Function.DURATION),
    ("en", "in what range do prices move", Function.RANGE),
    ("et", "keskmine hind homme", Function.AVERAGE),
    ("et", "mitu riigipüha on detsembris", Function.COUNT),
    ("et", "kui kaua kestab jõuluvaheaeg", Function.DURATION),
    ("et", "mis vahemikus hinnad kõiguvad", Function.RANGE),
    ("ru", "средняя цена завтра", Function.AVERAGE),
    ("ru", "сколько праздников в декабре", Function.COUNT),
    ("ru", "сколько дней длятся каникулы", Function.DURATION),
]


@pytest.mark.parametrize(("language", "text", "function"), AGGREGATES)
def test_an_aggregate(language: str, text: str, function: Function) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.aggregation is not None and shape.aggregation.function is function


@pytest.mark.parametrize(
    ("language", "text"), [("ru", "сколько стоит электричество завтра"), ("et", "kui palju maksab elekter")]
)
def test_how_much_it_costs_is_no_count(language: str, text: str) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.aggregation is None


@pytest.mark.parametrize("lead", ["", "а ", "и "])
@pytest.mark.parametrize("prep", ["во", "в"])
@pytest.mark.parametrize(
    "rest",
    [
        "{p} сколько было голосование",
        "когда было и {p} сколько",
        "{p} сколько начинаются каникулы",
        "самое свежее {p} сколько?",
    ],
)
def test_at_what_time_is_no_count(lead: str, prep: str, rest: str) -> None:
    shape = READER.read(lead + rest.format(p=prep), "ru")
    assert shape.aggregation is None


MONTH_FORMS = {
    "en": ["in {m}", "during {m}", "which of those are in {m}"],
    "et": ["{m}", "millised neist on {m}", "mis pühad on {m}?"],
    "ru": ["в {m}", "какие из них в {m}"],
}
MONTHS = {
    "en": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    # the inessive ("in December"), as people write it
    "et": [
        "jaanuaris",
        "veebruaris",
        "märtsis",
        "aprillis",
        "mais",
        "juunis",
        "juulis",
        "augustis",
        "septembris",
        "oktoobris",
        "novembris",
        "detsembris",
    ],
    "ru": [
        "январе",
        "феврале",
        "марте",
        "апреле",
        "мае",
        "июне",
        "июле",
        "августе",
        "сентябре",
        "октябре",
        "ноябре",
        "декабре",
    ],
}


@pytest.mark.parametrize("language", ["en", "et", "ru"])
@pytest.mark.parametrize("month", range(1, 13))
def test_a_month_alone_filters_by_month_in_every_case_form(language: str, month: int) -> None:
    name = MONTHS[language][month - 1]
    for form in MONTH_FORMS[language]:
        text = form.format(m=name)
        shape = READER.read(text, language)  # type: ignore[arg-type]
        months = [f.condition for f in shape.filters if isinstance(f.condition, Months)]
        ranges = [f.condition for f in shape.filters if isinstance(f.condition, DateRange)]
        assert months == [Months((month,))] or (
            ranges and ranges[0].start and ranges[0].start.month == month
        ), text


WEEKDAYS = {
    "en": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
    "et": ["esmaspäeval", "teisipäeval", "kolmapäeval", "neljapäeval", "reedel", "laupäeval", "pühapäeval"],
    "ru": ["понедельник", "вторник", "среду", "четверг", "пятницу", "субботу", "воскресенье"],
}
WEEKDAY_FORMS = {
    "en": "which of those fall on a {d}?",
    "et": "millised neist on {d}?",
    "ru": "какие из них в {d}?",
}


@pytest.mark.parametrize("language", ["en", "et", "ru"])
@pytest.mark.parametrize("day", range(1, 8))
def test_a_weekday_of_the_rows(language: str, day: int) -> None:
    text = WEEKDAY_FORMS[language].format(d=WEEKDAYS[language][day - 1])
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert [f.condition for f in shape.filters] == [Weekdays((day,))], text


@pytest.mark.parametrize(
    ("language", "text", "days"),
    [
        ("en", "only the weekend ones", (6, 7)),
        ("et", "mitu neist on nädalavahetusel", (6, 7)),
        ("ru", "какие из них на выходных", (6, 7)),
        ("en", "from monday to sunday", None),
        ("ru", "с понедельника по воскресенье", None),
        ("en", "which fall on weekdays", (1, 2, 3, 4, 5)),
    ],
)
def test_weekends_workdays_and_weekday_ranges(language: str, text: str, days: tuple[int, ...] | None) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    found = [f.condition for f in shape.filters if isinstance(f.condition, Weekdays)]
    assert found == ([Weekdays(days)] if days else [])


# A range's last hour named is in it ("18-22" lists the 22:00 price): Hours(18, 23).
HOURS = [
    ("en", "prices tomorrow from 6 to 9", (6, 10)),
    ("en", "electricity between 18 and 22", (18, 23)),
    ("en", "the price tonight after 10pm", (22, 24)),
    ("en", "price at 8pm tomorrow", (20, 21)),
    ("en", "electricity prices this evening", (18, 23)),
    ("en", "prices in the morning", (6, 12)),
    ("et", "elekter täna kella 18 ja 22 vahel", (18, 23)),
    ("et", "homme kell 20 hind", (20, 21)),
    ("et", "hinnad homme hommikul", (6, 12)),
    ("et", "aga õhtul?", (18, 23)),
    ("ru", "цены с 18 до 22", (18, 23)),
    ("ru", "сегодня ночью с 0 до 6", (0, 7)),
    ("ru", "а утром с 7 до 10?", (7, 11)),
    ("ru", "цена вечером", (18, 23)),
    ("en", "how much is electricity right now", (10, 11)),
    # a clock hour with a part of the day after noon
    ("en", "and at 9 in the evening?", (21, 22)),
    ("et", "aga kell 9 õhtul", (21, 22)),
    ("ru", "а вечером в 9", (21, 22)),
    ("ru", "а в 9 утра", (9, 10)),
    # from an hour until midnight
    ("et", "täna kella 22st keskööni elektrihind", (22, 24)),
    # a window crossing midnight
    ("en", "cheapest hour tonight between 22 and 6 in the morning?", (22, 7)),
    # a range narrowing the rows just shown, with no hour word
    ("en", "only 8 to 12 please", (8, 13)),
    ("et", "ainult 8-12", (8, 13)),
    ("ru", "только с 8 до 12", (8, 13)),
]


@pytest.mark.parametrize(("language", "text", "hours"), HOURS)
def test_a_time_of_day_window(language: str, text: str, hours: tuple[int, int]) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert [f.condition for f in shape.filters if isinstance(f.condition, Hours)] == [Hours(*hours)]


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "holidays 1-7 december"),
        ("et", "hinnad 24.12 kuni 1.1"),
        ("ru", "праздники с 20 декабря по 10 января"),
    ],
)
def test_days_of_a_month_are_no_hours(language: str, text: str) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert not [f for f in shape.filters if isinstance(f.condition, Hours)]


def test_a_span_of_days_stays_one_span_across_the_new_year() -> None:
    shape = READER.read("праздники в финляндии с 20 декабря по 10 января", "ru")
    assert [f.condition for f in shape.filters] == [DateRange(date(2026, 12, 20), date(2027, 1, 10))]


@settings(max_examples=40, deadline=None)
@given(first=st.integers(1, 27), length=st.integers(1, 3), month=st.integers(1, 12))
def test_a_number_read_as_days_or_hours_is_no_count(first: int, length: int, month: int) -> None:
    """ "just 23–29 nov", "ainult 8-12": the number after "only" names a span, not how many."""
    months = ("nov", "novembril", "ноября")
    for language, text in (
        ("en", f"ok then just {first}–{first + length} {months[0]}, average"),
        ("et", f"ainult {first}.-{first + length}. {months[1]} keskmine"),
        ("ru", f"только с {first} по {first + length} {months[2]}, среднюю"),
        ("en", f"only {month} to {month + 6} please"),
    ):
        shape = READER.read(text, language)  # type: ignore[arg-type]
        assert shape.selection is None, text


@pytest.mark.parametrize(
    ("language", "text", "start", "end"),
    [
        ("en", "is power cheaper tomorrow than today on average", date(2026, 12, 1), date(2026, 12, 2)),
        ("et", "kas homme on elekter odavam kui täna", date(2026, 12, 1), date(2026, 12, 2)),
        ("ru", "сегодня электричество дороже чем вчера?", date(2026, 11, 30), date(2026, 12, 1)),
    ],
)
def test_two_days_next_to_each_other_are_one_short_span(
    language: str, text: str, start: date, end: date
) -> None:
    """Days compared in either order are the days between them, never a year apart."""
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert [f.condition for f in shape.filters if isinstance(f.condition, DateRange)] == [
        DateRange(start, end)
    ]


DAY_WORDS = {
    "en": {-1: "yesterday", 0: "today", 1: "tomorrow"},
    "et": {-1: "eile", 0: "täna", 1: "homme"},
    "ru": {-1: "вчера", 0: "сегодня", 1: "завтра"},
}
COMPARATIVES = {
    "en": ("is it {cmp} {a} than {b}?", {Op.LT: "cheaper", Op.GT: "more expensive"}),
    "et": ("kas {a} on elekter {cmp} kui {b}?", {Op.LT: "odavam", Op.GT: "kallim"}),
    "ru": ("{a} электричество {cmp}, чем {b}?", {Op.LT: "дешевле", Op.GT: "дороже"}),
}


@settings(max_examples=30, deadline=None)
@given(
    language=st.sampled_from(["en", "et", "ru"]),
    days=st.sampled_from([(-1, 0), (0, -1), (0, 1), (1, 0), (-1, 1), (1, -1)]),
    op=st.sampled_from([Op.LT, Op.GT]),
)
def test_a_day_compared_with_another(language: str, days: tuple[int, int], op: Op) -> None:
    """The day before "than"/"kui"/"чем" is the subject, the one after it the reference."""
    template, words = COMPARATIVES[language]
    a, b = (DAY_WORDS[language][d] for d in days)
    shape = READER.read(template.format(a=a, b=b, cmp=words[op]), language)  # type: ignore[arg-type]
    subject, reference = (TODAY + timedelta(days=d) for d in days)
    assert shape.kind is Kind.YES_NO
    assert shape.period_comparison == answer_shape.PeriodComparison(
        DateRange(subject, subject), DateRange(reference, reference), op
    )
    assert answer_shape.from_proto(answer_shape.to_proto(shape)) == shape


def test_a_comparison_with_a_number_is_no_period_comparison() -> None:
    shape = READER.read("is it cheaper than 40 tomorrow", "en")
    assert shape.period_comparison is None


COMPARISONS = [
    ("en", "only the hours under 35 pls", Op.LT, 35.0),
    ("en", "hours cheaper than 40.5", Op.LT, 40.5),
    ("en", "which cost more than 100", Op.GT, 100.0),
    ("et", "tunnid alla 35 euro", Op.LT, 35.0),
    ("et", "kas hind on üle 150", Op.GT, 150.0),
    ("ru", "часы дешевле 30", Op.LT, 30.0),
    ("ru", "где больше 50 голосов", Op.GT, 50.0),
]


@pytest.mark.parametrize(("language", "text", "op", "value"), COMPARISONS)
def test_a_number_compared(language: str, text: str, op: Op, value: float) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    found = [f.condition for f in shape.filters if isinstance(f.condition, Comparison)]
    assert [(c.op, c.value) for c in found] == [(op, value)]


YES_NO = [
    ("en", "is 26 dec a public holiday in germany?", True),
    ("en", "hey is my id card ready yet?", True),
    ("en", "are there any school holidays in march", True),
    ("en", "so it's under 50 euros?", True),
    ("en", "is xmas eve a holiday there or not?", True),
    ("en", "what are the holidays in march?", False),
    ("en", "electricity prices this evening?", False),
    ("et", "kas 24. veebruar on puhkepäev", True),
    ("et", "passi taotlus kas on valmis juba?", True),
    ("et", "mis on homme elektri hind?", False),
    ("ru", "прошел ли законопроект?", True),
    ("ru", "паспорт уже готов?", True),
    ("ru", "у латышей 31 декабря тоже праздничный день?", True),
    ("ru", "средняя цена электричества на завтра?", False),
    ("ru", "а утром с 7 до 10?", False),
    ("ru", "какие праздники в декабре?", False),
]


@pytest.mark.parametrize(("language", "text", "yes_no"), YES_NO)
def test_a_yes_no_question(language: str, text: str, yes_no: bool) -> None:
    assert (READER.read(text, language).kind is Kind.YES_NO) is yes_no  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "every hour of tomorrow's prices"),
        ("en", "list all holidays in 2027"),
        ("et", "kõik riigipühad"),
        ("et", "hinnad iga tunni kaupa"),
        ("ru", "все праздники списком"),
        ("ru", "цены по всем часам"),
    ],
)
def test_a_full_list(language: str, text: str) -> None:
    assert READER.read(text, language).kind is Kind.FULL_LIST  # type: ignore[arg-type]


def test_words_for_fields_stay_and_periods_and_cues_go() -> None:
    shape = READER.read("what is the postal code of ülikooli 18 tartu this year?", "en")
    assert {"postal", "code", "ulikooli", "18", "tartu"} <= set(shape.terms)
    assert "year" not in shape.terms and "what" not in shape.terms


def test_follow_ups_keep_and_refine_the_last_shape() -> None:
    average = READER.read("average price last weekend", "en")
    later = for_param_update(average, READER.read("and the weekend before?", "en"))
    assert later.aggregation == average.aggregation
    evening = READER.read("prices tomorrow evening", "en")
    worst = for_response_question(evening, READER.read("which hour is the worst", "en"))
    assert Hours(18, 23) in [f.condition for f in worst.filters]
    assert worst.selection is not None and worst.selection.order is Order.HIGHEST
    monday = for_param_update(
        READER.read("cheapest hour on friday", "en"), READER.read("sorry, monday", "en")
    )
    assert [f.condition for f in monday.filters if isinstance(f.condition, Weekdays)] == [Weekdays((1,))]
    assert monday.selection is not None and monday.selection.order is Order.LOWEST


@given(st.text(max_size=300), st.sampled_from(["en", "et", "ru"]))
@settings(max_examples=300, deadline=None)
def test_any_text_reads_as_some_shape_and_survives_the_proto(text: str, language: str) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    again = answer_shape.from_proto(answer_shape.to_proto(shape))
    assert again == shape
    assert answer_shape.from_dict(answer_shape.to_dict(shape)) == shape
    assert isinstance(shape, AnswerShape)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "which of them are on a weekend"),
        ("en", "was that on a weekend?"),
        ("en", "any on weekends?"),
        ("et", "mitu neist on nädalavahetusel?"),
        ("et", "kas mõni langeb nädalavahetusele"),
        ("ru", "какие из них выпадают на выходные"),
        ("ru", "сколько из них на выходных"),
    ],
)
def test_an_undated_weekend_filters_the_rows_and_dates_nothing(language: str, text: str) -> None:
    """Asked of a list, "on a weekend" keeps its Saturdays and Sundays: it is not the
    coming weekend's dates (which would keep none of a year's holidays)."""
    shape = READER.read(text, language)  # type: ignore[arg-type]
    conditions = [f.condition for f in shape.filters]
    assert Weekdays((6, 7)) in conditions, text
    assert not any(isinstance(c, DateRange) for c in conditions), text


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "which holidays are in the range 20 december to 10 january"),
        ("et", "mis pühad jäävad vahemikku 20. detsember kuni 10. jaanuar"),
        ("et", "pühad vahemikus 1.-10. jaanuar"),
        ("ru", "праздники в диапазоне с 20 декабря по 10 января"),
    ],
)
def test_a_range_of_dates_is_a_period_not_a_spread(language: str, text: str) -> None:
    """'Range' before dates names the period asked about; only without them is it the
    spread of a number ('the price range tomorrow')."""
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.aggregation is None, text
    assert any(isinstance(f.condition, DateRange) for f in shape.filters), text
    assert READER.read("what's the price range tomorrow", "en").aggregation is not None


@pytest.mark.parametrize(
    ("language", "question", "reply", "start", "end"),
    [
        (
            "en",
            "nord pool prices for the whole of november please",
            "ok then just 23–29 nov, average",
            23,
            29,
        ),
        ("et", "anna terve novembri elektrihinnad", "ok siis 24.-30. november keskmine", 24, 30),
        ("ru", "цена электричества за весь ноябрь", "ну тогда средняя с 24 по 30 ноября", 24, 30),
    ],
)
def test_a_reply_in_a_session_brings_its_own_days_and_asks(
    language: str, question: str, reply: str, start: int, end: int
) -> None:
    """A period refused as too long, then a shorter one with an average: the answer is the
    average over the reply's days, not the first question's month filter."""
    shape = for_session_reply(READER.read(question, language), READER.read(reply, language))  # type: ignore[arg-type]
    assert shape.kind is Kind.AGGREGATE and shape.aggregation == Aggregation(Function.AVERAGE)
    assert [f.condition for f in shape.filters] == [DateRange(date(2026, 11, start), date(2026, 11, end))]


@pytest.mark.parametrize(("language", "reply"), [("en", "Finland"), ("et", "jah"), ("ru", "Латвия")])
def test_a_reply_with_only_a_value_keeps_the_questions_shape(language: str, reply: str) -> None:
    question = READER.read("public holidays in december, only the weekends", "en")
    assert for_session_reply(question, READER.read(reply, language)) == question  # type: ignore[arg-type]


@settings(max_examples=30, deadline=None)
# The last hour is in the window: "between 13 and 12" would be a whole day round, no night.
@given(first=st.integers(13, 23), last=st.integers(1, 11), offset=st.sampled_from([0, 1]))
def test_a_window_past_midnight_keeps_the_next_days_hours(first: int, last: int, offset: int) -> None:
    """ "Tonight between 22 and 6": the rows after midnight are the next day's, so the
    day's filter runs through that next day (month and year ends included)."""
    words = {"en": ("today", "tomorrow"), "et": ("täna", "homme"), "ru": ("сегодня", "завтра")}
    templates = {"en": "cheapest hour {d} between {a} and {b}", "et": "{d} kella {a}-{b} odavaim tund",
                 "ru": "самый дешёвый час {d} с {a} до {b}"}  # fmt: skip
    day = TODAY + timedelta(days=offset)
    for language, template in templates.items():
        text = template.format(d=words[language][offset], a=first, b=last)
        shape = READER.read(text, language)  # type: ignore[arg-type]
        conditions = [f.condition for f in shape.filters]
        assert Hours(first, last + 1) in conditions, text  # the last hour named is in it
        assert DateRange(day, day + timedelta(days=1)) in conditions, text


@pytest.mark.parametrize("joint", [" + ", " & ", " and ", " ja ", " и "])
@pytest.mark.parametrize(
    ("votes", "prices", "language"),
    [
        ("latest riigikogu vote", "electricity price right now", "en"),
        ("viimane riigikogu hääletus", "elektri hind praegu", "et"),
        ("последнее голосование в рийгикогу", "цена электричества сейчас", "ru"),
    ],
)
def test_each_part_of_a_two_part_question_keeps_its_own_shape(
    joint: str, votes: str, prices: str, language: str
) -> None:
    from loop_svc.shapes import question_parts

    parts = question_parts(f"{votes}{joint}{prices}")
    assert parts == [votes, prices]
    vote_shape = READER.read(parts[0], language)  # type: ignore[arg-type]
    price_shape = READER.read(parts[1], language)  # type: ignore[arg-type]
    assert vote_shape.selection is not None and vote_shape.selection.count == 1
    assert not any(isinstance(f.condition, Hours) for f in vote_shape.filters)
    assert [f.condition for f in price_shape.filters] == [Hours(10, 11)]


# A yes/no question followed by the value it is about, after its "?": the value asks
# nothing, the question stays a yes/no one. Questions × values × three languages.
YES_NO_THEN_VALUE = {
    "en": (
        ["is my passport ready?", "did it pass?", "is it cheaper tomorrow?"],
        ["number {}", "it is {}", "{}"],
    ),
    "et": (["kas mu pass on valmis?", "kas see võeti vastu?"], ["taotluse number {}", "nr {}", "{}"]),
    "ru": (
        ["мой паспорт уже готов?", "закон уже приняли?", "это уже праздник?"],
        ["номер заявки {}", "вот {}", "{}"],
    ),
}


@settings(max_examples=40, deadline=None)
@given(
    lang=st.sampled_from(sorted(YES_NO_THEN_VALUE)),
    question=st.integers(0, 2),
    value=st.integers(0, 2),
    code=st.sampled_from(["P1234567", "ab12345", "KV2718281", "123ABC"]),
)
def test_a_yes_no_question_followed_by_its_value_stays_yes_no(
    lang: str, question: int, value: int, code: str
) -> None:
    questions, values = YES_NO_THEN_VALUE[lang]
    text = f"{questions[question % len(questions)]} {values[value].format(code)}"
    assert READER.read(text, lang).kind is Kind.YES_NO, text  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text", ["какие голосования были? покажи последние", "what holidays are there? show me december"]
)
def test_a_question_word_after_the_question_mark_is_a_question_of_its_own(text: str) -> None:
    assert READER.read(text, "en").kind is not Kind.YES_NO


@pytest.mark.parametrize("pronoun", ["что-нибудь", "что-то", "кто-нибудь", "какое-нибудь", "что-либо"])
@pytest.mark.parametrize("verb", ["не приняли", "отклонили", "провалилось", "голосовал против"])
@pytest.mark.parametrize("opening", ["", "было среди последних голосований ", "в рийгикогу "])
def test_a_russian_indefinite_pronoun_asks_yes_or_no(pronoun: str, verb: str, opening: str) -> None:
    """ "что-нибудь" is no "что": the question asks whether any, and "среди" (among) names
    no Wednesday."""
    shape = READER.read(f"{opening}{pronoun} {verb}?", "ru")
    assert shape.kind is Kind.YES_NO, shape
    assert not shape.filters


@pytest.mark.parametrize("cue", ["последних", "первых", "ближайших", "следующих"])
@pytest.mark.parametrize("noun", ["голосований", "праздников"])
def test_a_russian_plural_cue_in_the_genitive_is_no_single_pick(cue: str, noun: str) -> None:
    assert READER.read(f"что было среди {cue} {noun}", "ru").selection is None


@pytest.mark.parametrize(
    ("language", "first", "then"),
    [
        ("en", "of the last 10 votes which one had the most people absent", "did it pass?"),
        ("en", "the cheapest hour tomorrow", "is it under 20?"),
        ("et", "milline hääletus sai kõige rohkem vastuhääli", "kas see läks läbi?"),
        ("ru", "какое голосование набрало больше всего голосов против", "его приняли?"),
    ],
)
def test_a_question_about_the_one_row_shown_keeps_its_pick(language: str, first: str, then: str) -> None:
    previous = READER.read(first, language)  # type: ignore[arg-type]
    assert previous.selection is not None
    follow = for_response_question(previous, READER.read(then, language))  # type: ignore[arg-type]
    assert follow.selection == previous.selection


# Both ends of one number asked together: its range, the words after the later cue its measure.
BOTH_EXTREMES = [
    ("en", "cheapest and most expensive hour tomorrow"),
    ("en", "which of the last 10 votes had the most and the fewest votes against"),
    ("et", "homme odavaim ja kalleim tund"),
    ("et", "eelmise nädalavahetuse kõige odavam ja kõige kallim tund"),
    ("ru", "самый дешевый и самый дорогой час завтра"),
    ("ru", "когда завтра дороже всего и когда дешевле всего"),
]


@pytest.mark.parametrize(("language", "text"), BOTH_EXTREMES)
def test_two_extremes_asked_together_are_the_range(language: str, text: str) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.selection is None
    assert shape.aggregation is not None and shape.aggregation.function is Function.RANGE


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "the cheapest hour tomorrow"),
        ("et", "homme kõige kallim tund"),
        ("ru", "самый дешевый час завтра"),
    ],
)
def test_one_extreme_stays_a_selection(language: str, text: str) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.selection is not None and shape.aggregation is None


# "How many days" a period lasts, against a count of days off and a distance in days.
DAYS_LONG = [
    ("en", "how many days is the spring break"),
    ("et", "mitu päeva on jõuluvaheaeg"),
    ("ru", "сколько дней летние каникулы в этом году"),
]
DAYS_AWAY = [
    ("en", "how many days until the summer break"),
    ("et", "mitu päeva on jäänud jõuluvaheajani"),
    ("ru", "через сколько дней следующие каникулы?"),
]


@pytest.mark.parametrize(("language", "text"), DAYS_LONG)
def test_how_many_days_a_period_lasts_is_its_duration(language: str, text: str) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.aggregation is not None and shape.aggregation.function is Function.DURATION


@pytest.mark.parametrize(("language", "text"), DAYS_AWAY)
def test_how_many_days_until_is_no_duration(language: str, text: str) -> None:
    shape = READER.read(text, language)  # type: ignore[arg-type]
    assert shape.aggregation is None or shape.aggregation.function is not Function.DURATION
