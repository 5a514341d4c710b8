"""A procedure aspect or a need asked of a citizen's document is a knowledge question,
whatever trip (a country, a weekend) is named beside it: generated from documents and
question forms in three languages. Lookups that name no document stay lookups."""

from __future__ import annotations

import pytest

from classifier_svc.layer_choice import knowledge_class

DOCUMENTS = {
    "en": ["passport", "ID card", "id-card", "driving licence", "residence permit"],
    "et": ["pass", "passi", "id-kaart", "id-kaardi", "juhiluba", "elamisluba"],
    "ru": ["паспорт", "паспорта", "ID-карта", "ID-карты", "вид на жительство"],
}
ASKS = {
    "en": [
        "how much does a new {d} cost?",
        "we fly to Finland for the weekend, do I need a {d}?",
        "is the {d} enough for a trip to Latvia?",
        "what's the price of a {d}",
    ],
    "et": [
        "kui palju uus {d} maksab?",
        "sõidame nädalavahetusel Soome, kas {d} on vaja?",
        "kas {d} piisab reisiks Lätti?",
    ],
    "ru": [
        "сколько стоит {d}?",
        "едем на выходные в Финляндию, нужен ли {d}?",
        "хватит ли {d} для поездки в Латвию?",
        "{d} обязательно брать в поездку в Литву?",
    ],
}
CASES = [(lang, ask.format(d=d)) for lang, asks in ASKS.items() for ask in asks for d in DOCUMENTS[lang]]


@pytest.mark.parametrize(("lang", "question"), CASES)
def test_an_aspect_or_need_of_a_document_is_a_knowledge_question(lang: str, question: str) -> None:
    assert knowledge_class(question) is not None, question


@pytest.mark.parametrize(
    "question",
    [
        "is my passport ready?",
        "kas mu id-kaart on valmis?",
        "готов ли мой паспорт?",
        "how much does electricity cost tomorrow",
        "kui palju maksab elekter homme",
        "сколько стоит электричество завтра",
        "what are the public holidays in Finland next weekend",
        "millised riigipühad on Soomes nädalavahetusel",
        "какие праздники в Финляндии на выходных",
        "which laws passed last week and how long did the session take",
        "how much is the car tax for a new car",
    ],
)
def test_a_lookup_naming_no_document_is_no_knowledge_question(question: str) -> None:
    assert knowledge_class(question) is None, question


@pytest.mark.parametrize(
    "question",
    [
        "do i qualify for parental benefit without income",
        "мне положено пособие по безработице?",
        "полагается ли мне родительское пособие",
        "kas mulle makstakse vanemahüvitist, kui ma ei töötanud",
    ],
)
def test_being_owed_a_benefit_is_eligibility(question: str) -> None:
    assert knowledge_class(question) == "eligibility", question
