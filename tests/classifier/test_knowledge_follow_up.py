"""A short message after a knowledge or status answer continues its page: the previous
answer's page (its source link), the document a status answer names, the previous
question's aspect when the message asks none; a message naming an endpoint's words
or asking its own question about a named topic is routed as usual."""

from __future__ import annotations

import pytest

from classifier_svc.candidates import PriorMessage, Workflow
from classifier_svc.knowledge_follow_up import (
    PreviousExchange,
    answer_text,
    asks_of_its_own,
    previous_exchange,
)
from classifier_svc.router import Router, RouterPolicy
from services.language import LanguageDetector
from tests.classifier.layer_support import Scripted, Sessions, cand, matcher, passage

POLICY = RouterPolicy(search_limit=5)
RESIDENCE = "https://example.test/residence"


def page(doc: str, title: str, cosine: float, lang: str = "en", matched: int = 2) -> list:
    return [passage(doc, cosine, title=title, lang=lang, matched=matched, of=3)]


# Keys are matched in order; the previous question (part of the follow-up's search) first.
KNOWLEDGE = {
    "register my new address": page("residence", "Registering your place of residence", 0.9),
    "elukoht registreerida": page("residence", "Elukoha registreerimine", 0.9, "et"),
    "прописаться": page("residence", "Регистрация места жительства", 0.9, "ru"),
    "P7777777": page("passport", "Applying for an Estonian passport", 0.88),
    "ja pass": page("passport", "Eesti passi taotlemine", 0.9, "et"),
    "how long until they register": page("birth", "Registering a child's birth", 0.9),
    "kiiresti see registreeritakse": page("birth", "Lapse sünni registreerimine", 0.9, "et"),
    "how long": page("birth", "Registering a child's birth", 0.88),
    "kui kaua": page("birth", "Lapse sünni registreerimine", 0.88, "et"),
    "сколько": page("birth", "Регистрация рождения ребёнка", 0.88, "ru"),
}
ENDPOINTS = {"electricity": [cand("get_electricity_prices", 0.9, matched=1, of=3)]}


def history(question: str, reply: str) -> list[PriorMessage]:
    return [PriorMessage("user", question), PriorMessage("assistant", reply)]


def knowledge_reply(lang: str) -> str:
    source = {"en": "Source", "et": "Allikas", "ru": "Источник"}[lang]
    return f"Submit a notice within one month.\n\n{source}: “Residence” — {RESIDENCE}"


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def router(detector: LanguageDetector) -> Router:
    return Router(matcher(Scripted(ENDPOINTS)), Sessions(), detector, POLICY, knowledge=Scripted(KNOWLEDGE))


@pytest.mark.parametrize(
    ("lang", "question", "follow_up"),
    [
        ("en", "how soon do i need to register my new address", "and how long does it take them?"),
        ("en", "how soon do i need to register my new address", "can i do it online"),
        ("et", "mitu päeva on aega elukoht registreerida", "ja kui kaua see neil võtab"),
        ("et", "mitu päeva on aega elukoht registreerida", "kas netis saab"),
        ("ru", "как прописаться в съёмной квартире", "а сколько ждать?"),
        ("ru", "как прописаться в съёмной квартире", "а через интернет можно?"),
        # A word of the previous exchange that another page's title has too names nothing new.
        ("en", "how soon do i need to register my new address", "how long until they register it?"),
        ("et", "mitu päeva on aega elukoht registreerida", "kui kiiresti see registreeritakse?"),
        # Longer, and still naming no topic of its own.
        (
            "en",
            "how soon do i need to register my new address",
            "can we do it online or do we have to go somewhere",
        ),
        (
            "et",
            "mitu päeva on aega elukoht registreerida",
            "kas seda saab kuidagi netis teha või pean ise kuhugi kohale minema",
        ),
        (
            "ru",
            "как прописаться в съёмной квартире",
            "а можно это сделать через интернет или надо куда-то идти лично",
        ),
    ],
)
async def test_a_follow_up_without_a_topic_stays_on_the_previous_page(
    detector: LanguageDetector, lang: str, question: str, follow_up: str
) -> None:
    decision = await router(detector).decide(
        "c", follow_up, None, history=history(question, knowledge_reply(lang))
    )
    assert decision.workflow is Workflow.RAG
    assert {p.url for p in decision.passages} == {RESIDENCE}
    assert decision.query == follow_up  # it asks its own aspect
    assert decision.language == lang


async def test_a_case_without_an_aspect_takes_the_previous_question() -> None:
    previous = PreviousExchange("how many days of shared parental benefit do we get", "… 475 days …")
    for case in ("and for the dad?", "ja isale?", "а для отца?"):
        assert not asks_of_its_own(case)
        assert answer_text(case, previous).startswith(previous.question)
    for own in ("and how much is it?", "kui palju see maksab?", "а сколько стоит?"):
        assert answer_text(own, previous) == own


async def test_a_new_topic_without_an_aspect_is_answered_with_the_previous_aspect(
    detector: LanguageDetector,
) -> None:
    turns = history(
        "kui kaua id kaart kehtib", "ID-kaart kehtib viis aastat.\n\nAllikas: „ID” — https://x.test/id"
    )
    decision = await router(detector).decide("c", "ja pass?", None, history=turns)
    assert decision.workflow is Workflow.RAG
    assert decision.language == "et"
    assert decision.query == "kui kaua id kaart kehtib ja pass?"
    assert {p.title for p in decision.passages} == {"Eesti passi taotlemine"}


async def test_after_a_status_answer_the_documents_page_answers(detector: LanguageDetector) -> None:
    turns = history(
        "my passport application P7777777, when can i pick it up",
        "Check document application status — P7777777:\nDocument: Passport\nStatus: In processing",
    )
    decision = await router(detector).decide("c", "how long does it usually take", None, history=turns)
    assert decision.workflow is Workflow.RAG
    assert {p.title for p in decision.passages} == {"Applying for an Estonian passport"}


async def test_an_endpoints_words_or_no_previous_answer_route_as_usual(detector: LanguageDetector) -> None:
    turns = history("how soon do i need to register my new address", knowledge_reply("en"))
    electricity = await router(detector).decide("c", "and electricity prices tomorrow?", None, history=turns)
    assert electricity.workflow is Workflow.API_TOOL_CALLING
    # After a plain answer with no source and no number, nothing is continued.
    plain = await router(detector).decide(
        "c", "and how long does it take them?", None, history=history("hi", "Hello!")
    )
    assert not {p.url for p in plain.passages} & {RESIDENCE}


def test_the_previous_exchange_is_the_last_reply_and_its_question() -> None:
    turns = [
        PriorMessage("user", "first"),
        PriorMessage("assistant", "one"),
        PriorMessage("user", "second"),
        PriorMessage("assistant", "two — https://a.test/p."),
    ]
    previous = previous_exchange(turns)
    assert previous == PreviousExchange("second", "two — https://a.test/p.")
    assert previous.cited_urls == {"https://a.test/p"}
    assert previous_exchange([PriorMessage("user", "only")]) is None


# A follow-up that asks an aspect of the page and names nothing new shares only its
# aspect word with an endpoint ("maksab" ~ "maks", a tax): it continues the page.
ASPECT_FOLLOW_UPS = {
    "en": ["and how much does it cost?", "how long does it take"],
    "et": ["ja palju see maksab", "kui kaua see võtab"],
    "ru": ["а сколько это стоит?", "и сколько это займет по времени"],
}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@pytest.mark.parametrize("form", range(2))
async def test_a_follow_up_asking_an_aspect_continues_the_page_over_an_endpoints_one_word(
    detector: LanguageDetector, lang: str, form: int
) -> None:
    message = ASPECT_FOLLOW_UPS[lang][form]
    one_word = {message: [cand("get_vehicle_tax_info", 0.9, matched=1, of=3)]}
    question = {"en": "how soon do i need to register my new address", "et": "kuidas elukoht registreerida"}
    turns = history(question.get(lang, "как прописаться"), knowledge_reply(lang))
    routed = Router(matcher(Scripted(one_word)), Sessions(), detector, POLICY, knowledge=Scripted(KNOWLEDGE))
    decision = await routed.decide("c", message, None, history=turns)
    assert decision.workflow is Workflow.RAG, decision.reasoning
