"""Which layer answers, by class of question, over scripted searches: knowledge-class
questions go to the knowledge base (unless an identifier is given), out-of-scope topics
are refused unless the catalogue covers them, a weak match asks to confirm instead of
opening a session, and a new question inside a session switches instead of being
swallowed."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from classifier_svc.candidates import ActiveSession, Candidate, PendingParam, Reason, Workflow
from classifier_svc.catalogue_overview import Offer, Overview, StaticOverview
from classifier_svc.layer_choice import (
    TOPIC_CONCEPTS,
    covered_topics,
    has_identifier,
    knowledge_class,
    uncovered_topic,
)
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.service_gate import Thresholds
from services.language import LanguageDetector
from tests.classifier.layer_support import Scripted, Sessions, cand, matcher, passage

POLICY = RouterPolicy(
    search_limit=5, service_thresholds=Thresholds(minimum=0.77, high=0.82, gap=0.0, min_term_coverage=0.75)
)
DEMO_LIKE = Overview(
    offers=(
        Offer(
            {"en": "Address search", "et": "Aadressiotsing"},
            "Search the address register.",
            ("Where is Viru 4?",),
        ),
        Offer(
            {"en": "School holidays", "et": "Koolivaheajad", "ru": "Школьные каникулы"}, "School holidays."
        ),
    ),
    topics=(("en", "Passport"),),
)

# Knowledge classes: subject × aspect, three languages.
SUBJECTS = {
    "en": ["my passport", "an id card", "a driving licence", "a residence permit"],
    "et": ["passi", "id-kaardi", "juhiloa", "elamisloa"],
    "ru": ["паспорта", "айди карты", "прав", "вида на жительство"],
}
ASPECTS = {
    "en": [
        ("what is the state fee for {s}", "fee"),
        ("i lost {s}, what should i do", "lost"),
        ("what documents do i need for {s}", "documents_needed"),
        ("how do i renew {s}", "procedure"),
        ("how long is {s} valid", "validity"),
    ],
    "et": [
        ("kui suur on {s} riigilõiv", "fee"),
        ("kaotasin {s}, mida teha", "lost"),
        ("mis dokumente on {s} jaoks vaja", "documents_needed"),
        ("kuidas {s} uuendada", "procedure"),
        ("kui kaua on {s} kehtiv", "validity"),
    ],
    "ru": [
        ("какая госпошлина для {s}", "fee"),
        ("потерял {s}, что делать", "lost"),
        ("какие документы нужны для {s}", "documents_needed"),
        ("как продлить срок {s}", "procedure"),
        ("сколько действует {s}", "validity"),
    ],
}
KNOWLEDGE_QUESTIONS = [
    (lang, template.format(s=subject), kind)
    for lang in SUBJECTS
    for (template, kind), subject in itertools.product(ASPECTS[lang], SUBJECTS[lang])
]


@pytest.mark.parametrize(("lang", "message", "kind"), KNOWLEDGE_QUESTIONS)
def test_knowledge_classes_in_three_languages(lang: str, message: str, kind: str) -> None:
    assert knowledge_class(message) is not None, message


@pytest.mark.parametrize(
    "message",
    [
        "how much is my vehicle tax",
        "what is the status of my id card application",
        "electricity exchange prices tomorrow",
        "search the address register for lossi plats 1a",
        "public holidays in latvia in december",
        "kui suur on mu sõidukimaks",
        "какие праздники в латвии",
    ],
)
def test_api_questions_are_no_knowledge_class(message: str) -> None:
    assert knowledge_class(message) is None


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("A1234567 staatus", True),
        ("tax for 123ABC", True),
        ("номер 1234567", True),
        ("holidays in 2026", False),
    ],
)
def test_identifiers_are_letters_with_digits_or_long_numbers(message: str, expected: bool) -> None:
    assert has_identifier(message) is expected


TOPICS = {
    "weather": [
        "what's the weather in tartu tomorrow",
        "milline ilm homme tallinnas on",
        "какая погода в нарве",
    ],
    "cooking": ["give me a recipe for potato salad", "anna hea verivorsti retsept", "рецепт солянки дай"],
    "eating_out": [
        "recommend a good restaurant in tallinn",
        "soovita mõni hea restoran",
        "посоветуй ресторан в тарту",
    ],
    "sports": ["who won the football yesterday", "kes võitis eile jalka", "кто выиграл вчера в хоккей"],
    # A language or writing task done for the citizen, whatever service its words name.
    "translation": [
        "translate into english: i need a new passport",
        "tõlgi inglise keelde: mul on vaja uut passi",
        "переведи на эстонский: мне нужно записаться к врачу",
    ],
    "creative_writing": [
        "write me a short poem about jaanipäev",
        "kirjuta luuletus jaanipäevast",
        "напиши стишок про иванов день",
    ],
}


@pytest.mark.parametrize(("topic", "message"), [(t, m) for t, ms in TOPICS.items() for m in ms])
def test_out_of_scope_topics_unless_the_catalogue_covers_them(topic: str, message: str) -> None:
    assert uncovered_topic(message, frozenset()) == topic
    # A catalogue that has the topic answers it: CLINC's weather, a restaurant booking.
    covering = covered_topics(
        [
            f"Handle requests about: {w}"
            for w in ("weather", "recipe", "restaurant", "football", "translate", "poem")
        ]
    )
    assert uncovered_topic(message, covering) is None


# A timetable question: a vehicle × the time it leaves × two towns, in each language.
TIMETABLE = {
    "en": (
        ["{t} is the {v} from {a} to {b}", "{v} {a} to {b} {t}"],
        ["bus", "train", "ferry"],
        ["what time", "when does it leave", "when is the next"],
    ),
    "et": (
        ["{v} {a} {b} {t}", "{t} {v} {a} {b}"],
        ["buss", "rong", "praam"],
        ["mis kell läheb", "millal väljub"],
    ),
    "ru": (
        ["{t} {v} из {a} в {b}", "{v} {a} {b} {t}"],
        ["автобус", "поезд", "паром"],
        ["во сколько", "когда отходит"],
    ),
}
TOWNS = {"en": ("tallinn", "tartu"), "et": ("tallinnast", "tartusse"), "ru": ("тарту", "таллин")}
OTHER_TAXES = [
    "help me fill in my income tax return",
    "when is the deadline for the tax declaration",
    "how much vat do i pay on a used car",
    "millal tuludeklaratsioon ära tuleb esitada",
    "kui palju tulumaksu tagasi saan",
    "kuidas käibemaksu arvutada",
    "как заполнить декларацию о доходах",
    "когда вернут подоходный налог",
]


def _timetables() -> list[str]:
    out = []
    for lang, (templates, vehicles, times) in TIMETABLE.items():
        a, b = TOWNS[lang]
        for template, vehicle, when in itertools.product(templates, vehicles, times):
            out.append(template.format(v=vehicle, a=a, b=b, t=when))
    return out


@pytest.mark.parametrize("message", _timetables())
def test_a_timetable_question_is_out_of_scope_not_an_address(message: str) -> None:
    assert uncovered_topic(message, frozenset()) == "timetable"
    assert uncovered_topic(message, covered_topics(["Bus and train departures between towns"])) is None


@pytest.mark.parametrize("message", OTHER_TAXES)
def test_other_taxes_are_out_of_scope_beside_a_vehicle_tax(message: str) -> None:
    vehicle_tax = covered_topics(["Motor vehicle tax of a car: base, CO2 and mass parts, the year's total"])
    assert uncovered_topic(message, vehicle_tax) == "other_taxes"


@pytest.mark.parametrize(
    "message",
    [
        "taking the train to riga next week, do i need a passport",
        "kas rongis peab isikut tõendav dokument olema",
        "еду на автобусе в латвию, нужен ли паспорт",
        "mis kell on homme kõige odavam elekter",
        "когда электричество дешевле всего на следующей неделе",
        "what is the vehicle tax for 123ABC next year",
        "busy wednesday huh",
    ],
)
def test_a_trip_or_a_vehicle_tax_is_no_topic(message: str) -> None:
    assert uncovered_topic(message, frozenset()) is None


@pytest.mark.parametrize(
    "message", ["where is narva mnt 5", "kus asub viru 4 tallinnas", "где находится нарвское шоссе 5"]
)
def test_an_address_is_no_topic(message: str) -> None:
    assert uncovered_topic(message, frozenset()) is None


@pytest.mark.parametrize(
    "message", ["gps coordinates of peetri plats 5 narva?", "mis maakonnas on peetri plats 5?"]
)
def test_a_name_a_typo_away_from_a_topic_word_is_no_topic(message: str) -> None:
    # "peetri" is one letter from "poetry" (a creative-writing topic): a topic refuses the
    # question, so it is read from words as written, never from a typo.
    assert uncovered_topic(message, frozenset()) is None


def _second_letter_changed(word: str) -> str:
    # A letter no fold of a diacritic gives ("ä" typed "a" is no typo here).
    return word[0] + ("ъ" if "\u0400" <= word[1] <= "\u04ff" else "q") + word[2:]


@pytest.mark.parametrize(
    "word",
    sorted(
        {
            w
            for c in TOPIC_CONCEPTS
            for w in c.words
            if " " not in w and len(w) >= 6 and w.isalpha() and _second_letter_changed(w) not in c.words
        }
    ),
)
def test_a_topic_word_with_a_typo_names_no_topic(word: str) -> None:
    typo = _second_letter_changed(word)
    assert uncovered_topic(f"{typo} 5", frozenset()) is None, typo


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def build(
    detector: LanguageDetector,
    endpoints: dict[str, list[Candidate]],
    *,
    services: dict[str, list[Candidate]] | None = None,
    knowledge: dict | None = None,
    sessions: Sessions | None = None,
) -> Router:
    return Router(
        matcher(Scripted(endpoints)),
        sessions or Sessions(),
        detector,
        POLICY,
        services=Scripted(services or {}),
        knowledge=Scripted(knowledge or {}),
        overview=StaticOverview(DEMO_LIKE),
    )


async def test_a_knowledge_class_question_goes_to_the_knowledge_base(detector: LanguageDetector) -> None:
    # The vehicle-tax endpoint scores high on "how much … fee", but the question is a fee's.
    router = build(
        detector,
        {"fee": [cand("get_vehicle_tax_info", 0.9)], "123abc": [cand("get_vehicle_tax_info", 0.9)]},
        knowledge={"fee": [passage("id-card.en", 0.86)], "123abc": [passage("id-card.en", 0.86)]},
    )
    known = await router.decide("c1", "how much is the state fee for an id card?", None)
    assert known.workflow is Workflow.RAG and known.reasoning.startswith("a knowledge question (fee)")
    # With an identifier the citizen asks for a lookup.
    looked_up = await router.decide("c1", "what is the fee for 123ABC", None)
    assert looked_up.workflow is Workflow.API_TOOL_CALLING


async def test_out_of_scope_topics_are_refused_not_searched_as_addresses(detector: LanguageDetector) -> None:
    endpoints = {"restaurant": [cand("search_address", 0.95)], "viru": [cand("search_address", 0.95)]}
    router = build(detector, endpoints)
    refused = await router.decide("c1", "recommend a good restaurant in Tallinn", None)
    assert refused.workflow is Workflow.OOD and "restaurant" not in refused.reply.lower()
    assert "address search" in refused.reply.lower()
    address = await router.decide("c1", "where is viru 4", None)
    assert address.workflow is Workflow.API_TOOL_CALLING


def weak(name: str) -> Candidate:
    # Accepted (just above the threshold, a small lead) but sharing no word with the message.
    return cand(name, 0.802, matched=0, of=5)


async def test_a_weak_match_asks_to_confirm_in_the_citizens_language(detector: LanguageDetector) -> None:
    router = build(detector, {"kaua": [weak("school_holidays"), cand("other", 0.799)]})
    decision = await router.decide("c1", "Kui kaua passi saamine aega võtab?", "et")
    assert decision.workflow is Workflow.CONTEXT and not decision.endpoints
    assert decision.reply.startswith("Kas mõtlete")
    assert decision.reasoning.startswith("weak match")


async def test_a_weak_match_is_answered_from_knowledge_when_it_can(detector: LanguageDetector) -> None:
    router = build(
        detector,
        {"kaua": [weak("school_holidays"), cand("other", 0.799)]},
        knowledge={"kaua": [passage("passport.et", 0.86, lang="et")]},
    )
    decision = await router.decide("c1", "Kui kaua passi saamine aega võtab?", "et")
    assert decision.workflow is Workflow.RAG and not decision.endpoints


async def test_a_clear_match_still_opens_its_session(detector: LanguageDetector) -> None:
    router = build(detector, {"koolivaheaeg": [cand("school_holidays", 0.9, matched=1, of=2)]})
    decision = await router.decide("c1", "millal on koolivaheaeg", "et")
    assert decision.workflow is Workflow.API_TOOL_CALLING and decision.reason is Reason.NEW_MATCH


SCHOOL_SESSION = ActiveSession(
    "c1", ("school_holidays",), "et", pending=(PendingParam("countryIsoCode", "string"),)
)


async def test_a_new_question_for_a_service_inside_a_session_switches(detector: LanguageDetector) -> None:
    sessions = Sessions({"c1": SCHOOL_SESSION})
    router = build(
        detector,
        {},
        services={"id-kaart": [cand("check_document_application_status", 0.9)]},
        sessions=sessions,
    )
    decision = await router.decide("c1", "Kas mu ID-kaart on valmis? Taotluse number A1234567", None)
    assert decision.workflow is Workflow.SERVICE and decision.reason is Reason.INTENT_SWITCH
    assert sessions.sessions == {}, "the old session is dropped"


async def test_a_knowledge_question_inside_a_session_is_answered_and_the_session_waits(
    detector: LanguageDetector,
) -> None:
    sessions = Sessions({"c1": SCHOOL_SESSION})
    router = build(
        detector, {}, knowledge={"kaotasin": [passage("id-card.et", 0.88, lang="et")]}, sessions=sessions
    )
    decision = await router.decide("c1", "kaotasin oma id-kaardi ära, mida ma nüüd tegema pean?", None)
    assert decision.workflow is Workflow.RAG
    assert "c1" in sessions.sessions


async def test_a_reply_to_the_pending_question_is_still_a_reply(detector: LanguageDetector) -> None:
    sessions = Sessions({"c1": SCHOOL_SESSION})
    router = build(
        detector, {}, services={"eesti": [cand("check_document_application_status", 0.9)]}, sessions=sessions
    )
    decision = await router.decide("c1", "Eesti", None)
    assert decision.reason is Reason.SESSION_RESUME


def with_params(name: str, cosine: float, description: str) -> Candidate:
    from dataclasses import replace as _replace
    from types import SimpleNamespace

    endpoint = SimpleNamespace(name=name, params=[SimpleNamespace(description=description)], answer_titles={})
    return _replace(cand(name, cosine, matched=0, of=2), endpoint=endpoint)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("A7777777 staatus", "document_status"),
        ("проверьте пожалуйста B7654321", "document_status"),
        ("p2233445 уже готов?", "document_status"),
        ("mis on 555KLM maks", "vehicle_tax"),
        ("tax for 345JKL", "vehicle_tax"),
        ("налог на машину 321TAB", "vehicle_tax"),
    ],
)
async def test_a_value_shaped_like_a_parameters_example_routes_to_its_owner(
    detector: LanguageDetector, message: str, expected: str
) -> None:
    # Both candidates score the same; only the shape of the value tells them apart.
    status = with_params("document_status", 0.80, "The application number (e.g. A1234567)")
    tax = with_params("vehicle_tax", 0.80, "The vehicle registration plate number (e.g., 123ABC)")
    address = with_params("search_address", 0.81, "The address to look up (e.g., Viru tn 4, Tallinn)")
    router = build(detector, {"": [address, tax]}, services={"": [status]})
    decision = await router.decide("c1", message, None)
    assert [c.name for c in decision.endpoints] == [expected]
    assert decision.reasoning.startswith("identifier shaped like")


STATUS_QUESTIONS = {
    "en": "is my passport ready? the number is {}",
    "et": "kas mu pass on valmis? taotluse nr {}",
    "ru": "мой паспорт уже готов? номер заявления {}",
}

# The example's length, longer, shorter, too short, three letters, lower case.
APPLICATION_NUMBERS = ["A1234567", "P22334455", "K55555", "a123", "ABC1234", "r13579"]


@pytest.mark.parametrize(
    ("lang", "number"),
    list(itertools.product(STATUS_QUESTIONS, APPLICATION_NUMBERS)),
)
async def test_an_application_number_of_any_length_with_its_question_is_one_request(
    detector: LanguageDetector, lang: str, number: str
) -> None:
    # The example shows the kind of number (letters, then digits), not its length: a
    # number too short or too long still goes to the service, which checks it. A question
    # followed by its number splits at the "?" but is one request: its first part is
    # nearer the status service than any other service.
    status = with_params("document_status", 0.80, "The application number (e.g. A1234567)")
    tax = with_params("vehicle_tax", 0.81, "The vehicle registration plate number (e.g., 123ABC)")
    address = with_params("search_address", 0.86, "The address to look up (e.g., Viru tn 4, Tallinn)")
    # The question's own part is the service's by its gate too (its words are the service's).
    question = STATUS_QUESTIONS[lang].split("?")[0]
    own = replace(status, matched_terms=2, query_terms=2)
    router = build(detector, {"": [address, tax]}, services={question: [own], "": [status]})
    decision = await router.decide("c1", STATUS_QUESTIONS[lang].format(number), None)
    assert [c.name for c in decision.endpoints] == ["document_status"]
    assert decision.reasoning.startswith("identifier shaped like")


@pytest.mark.parametrize(
    ("lang", "reversed_plate"),
    list(itertools.product(["en", "et", "ru"], ["ABC123", "KUU611", "abc123"])),
)
async def test_a_value_of_another_shape_goes_where_its_words_and_meaning_are_closer(
    detector: LanguageDetector, lang: str, reversed_plate: str
) -> None:
    # A plate typed letters first has the application number's shape (letters, then
    # digits), but the message is about the tax in meaning and in words: the identifier
    # layer leaves it to routing, and the tax endpoint's loop explains the plate's form.
    message = {
        "en": f"tax for plate {reversed_plate}",
        "et": f"palju on auto {reversed_plate} maks",
        "ru": f"налог на машину {reversed_plate}",
    }[lang]
    status = with_params("document_status", 0.78, "The application number (e.g. A1234567)")
    tax = replace(
        with_params("vehicle_tax", 0.86, "The vehicle registration plate number (e.g., 123ABC)"),
        matched_terms=2,
        query_terms=2,
    )
    router = build(detector, {"": [tax]}, services={"": [status]})
    decision = await router.decide("c1", message, None)
    assert not decision.reasoning.startswith("identifier shaped like"), decision.reasoning


@pytest.mark.parametrize(
    "message",
    [
        "find the address Viru 4 and the tax for 123ABC",
        "leia aadress Viru 4 ja maks autole 123ABC",
        "найди адрес Viru 4 и налог на 123ABC",
    ],
)
async def test_a_second_request_without_a_value_leaves_the_split_to_the_multi_intent_layer(
    detector: LanguageDetector, message: str
) -> None:
    # The part without the plate is another endpoint's request on its own: the endpoints'
    # gate accepts it, and it shares the endpoint's words ("address").
    tax = with_params("vehicle_tax", 0.80, "The vehicle registration plate number (e.g., 123ABC)")
    address = with_params("search_address", 0.86, "The address to look up (e.g., Viru tn 4, Tallinn)")
    address = replace(address, matched_terms=1, query_terms=2)
    router = build(detector, {"123ABC": [tax, address], "Viru 4": [address, tax]})
    decision = await router.decide("c1", message, None)
    assert not decision.reasoning.startswith("identifier shaped like")


# What is asked of a value, in a part of its own: nearest some other endpoint by meaning
# alone (no word of it in that endpoint's text), and still the value's question.
ASKED_OF_THE_VALUE = {
    "en": ["what kind of car is {p} and when was it first registered", "tax for {p}, and break it down"],
    "et": [
        "{p} kui suur vanuse soodustus on ja palju lõpuks maksta tuleb",
        "{p} maks ja kuidas see kokku tuleb",
    ],
    "ru": ["из чего складывается налог для {p}? распиши по частям", "какой co2 и полная масса у {p}"],
}


@pytest.mark.parametrize(
    ("lang", "frame", "plate"),
    [
        (lang, frame, plate)
        for lang, frames in ASKED_OF_THE_VALUE.items()
        for frame in frames
        for plate in ("250RTS", "248mhk")
    ],
)
async def test_what_is_asked_of_a_value_in_a_part_of_its_own_stays_the_values(
    detector: LanguageDetector, lang: str, frame: str, plate: str
) -> None:
    tax = with_params("vehicle_tax", 0.80, "The vehicle registration plate number (e.g., 123ABC)")
    # Closer by cosine for any part, accepted by the gate, but sharing no word with it.
    address = with_params("search_address", 0.86, "The address to look up (e.g., Viru tn 4, Tallinn)")
    router = build(detector, {"": [address, tax]})
    decision = await router.decide("c1", frame.format(p=plate), None)
    assert [c.name for c in decision.endpoints] == ["vehicle_tax"], decision.reasoning
    assert decision.reasoning.startswith("identifier shaped like")


# A service's value and another endpoint's request in one message, generated: each
# language's status part and endpoint request, in either order, joined by its conjunctions.
STATUS_PARTS = {
    "en": ["status of {n}", "is application {n} ready"],
    "et": ["taotluse {n} staatus", "kas {n} on valmis"],
    "ru": ["статус заявления {n}", "готова ли заявка {n}"],
}
OTHER_REQUESTS = {
    "en": ["when does the christmas break start at school", "the public holidays in latvia in december"],
    "et": ["millal koolide jõuluvaheaeg algab", "läti riigipühad detsembris"],
    "ru": ["когда начинаются рождественские каникулы в школе", "праздники латвии в декабре"],
}
JOINS = {
    "en": [" and ", " + ", ", and also "],
    "et": [" ja ", " ning ", " + "],
    "ru": [" и ", " а также ", " + "],
}
SERVICE_AND_ENDPOINT = [
    (lang, status.format(n=number), other, join, status_first)
    for lang in STATUS_PARTS
    for status, other, join in itertools.product(STATUS_PARTS[lang], OTHER_REQUESTS[lang], JOINS[lang])
    for number, status_first in (("KT5500913", True), ("p7654321", False))
]


@pytest.mark.parametrize(("lang", "status", "other", "join", "status_first"), SERVICE_AND_ENDPOINT)
async def test_a_service_number_beside_an_endpoint_request_runs_both(
    detector: LanguageDetector, lang: str, status: str, other: str, join: str, status_first: bool
) -> None:
    # The service's own search puts the service first for anything (it is the only one);
    # the endpoint's gate accepts the other part on its own.
    service = with_params("document_status", 0.80, "The application number (e.g. A1234567)")
    endpoint = with_params("holidays", 0.90, "The period (e.g. 2026-12-01)")
    endpoint = replace(endpoint, matched_terms=3, query_terms=3)
    message = status + join + other if status_first else other + join + status
    router = build(detector, {other: [endpoint]}, services={"": [service]})
    decision = await router.decide("c1", message, None)
    assert [c.name for c in decision.endpoints] == ["document_status", "holidays"]
    assert decision.workflow is Workflow.API_TOOL_CALLING
    assert [q.lower() for q in decision.endpoint_queries] == [status.lower(), other.lower()]


@pytest.mark.parametrize("other", ["and thanks a lot", "ja aitäh", "и спасибо заранее"])
async def test_a_service_number_beside_words_no_endpoint_accepts_stays_the_services(
    detector: LanguageDetector, other: str
) -> None:
    service = with_params("document_status", 0.80, "The application number (e.g. A1234567)")
    weak = replace(
        with_params("holidays", 0.60, "The period (e.g. 2026-12-01)"), matched_terms=0, query_terms=3
    )
    router = build(detector, {"": [weak]}, services={"": [service]})
    decision = await router.decide("c1", f"status of KT5500913 {other}", None)
    assert [c.name for c in decision.endpoints] == ["document_status"]


def test_the_demo_catalogue_covers_none_of_the_out_of_scope_topics() -> None:
    # Words of other languages must not meet a topic's by folding or a typo ("recent" is
    # no "recipe", "sünni" no "sunny"): the catalogue's own texts name no such topic.
    import json
    from pathlib import Path

    demo = Path(__file__).resolve().parents[2] / "devtools" / "demo_apis"
    bodies = json.loads((demo / "catalogue.json").read_text()) + json.loads(
        (demo / "services.json").read_text()
    )
    texts = [
        t
        for b in bodies
        for t in [b["description"], *b.get("examples", []), *b.get("answerTitles", {}).values()]
    ]
    texts += [
        line[len("title:") :]
        for page in (demo / "knowledge").glob("*.md")
        for line in page.read_text().splitlines()
        if line.startswith("title:")
    ]
    assert covered_topics(texts) == frozenset()


# The Estonian preposition "ilma" (without) marks no topic; the weather's own words do.
@pytest.mark.parametrize("noun", ["omanikuta", "lepinguta", "tööta", "dokumentideta", "loata"])
@pytest.mark.parametrize("frame", ["kas saan seda teha ilma {n}?", "ilma {n} ei saa?", "jäin {n} ilma"])
def test_the_preposition_ilma_is_no_weather_question(noun: str, frame: str) -> None:
    assert uncovered_topic(frame.format(n=noun), frozenset()) is None


@pytest.mark.parametrize("message", ["milline ilm on homme?", "ilmateade homseks", "mis ilmaga homme?"])
def test_weather_words_still_mark_the_weather(message: str) -> None:
    assert uncovered_topic(message, frozenset()) == "weather"


def test_the_function_word_pattern_is_linear_on_a_long_message() -> None:
    assert uncovered_topic("ilma " * 20_000, frozenset()) is None
