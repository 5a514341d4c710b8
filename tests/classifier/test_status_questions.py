"""A question about the state of the citizen's own application with no number ("is my
passport ready yet", "tahaks passi taotluse seisu teada", "готов ли мой паспорт") is the
status service's, which then asks for the number: generated over documents × state
words × three languages; the aspects of the procedure a page answers (how long, how much,
lost, which documents) still go to the knowledge base, and an endpoint that shares more
of the message's words keeps it."""

from __future__ import annotations

import itertools

import pytest

from classifier_svc.candidates import Workflow
from classifier_svc.layer_choice import status_question
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.service_gate import Thresholds
from services.language import LanguageDetector
from tests.classifier.layer_support import Scripted, Sessions, cand, matcher, passage

DOCUMENTS = {
    "en": ["passport", "id card", "ID-card", "residence card"],
    "et": ["pass", "id kaart", "ID-kaart", "passitaotlus"],
    "ru": ["паспорт", "id карта", "ид карта", "ID-карта"],
}
STATE_QUESTIONS = {
    "en": [
        "is my {} ready yet",
        "what is the status of my {} application",
        "check the status of my {}",
        "has my {} been processed",
        "is my {} done",
    ],
    "et": [
        "kas mu {} on juba valmis",
        "mis seisus on mu {}",
        "tahaks {} taotluse seisu teada",
        "milline on minu {} olek",
        "mis on mu {} staatus",
    ],
    "ru": [
        "готов ли мой {}",
        "какой статус у {}",
        "проверьте статус заявления на {}",
        "хочу узнать готова ли моя {}",
        "в каком состоянии мой {}",
    ],
}
# The procedure's aspects: the knowledge base's, whatever the state word.
ASPECT_QUESTIONS = {
    "en": [
        "how long does it take until my {} is ready",
        "i lost my {}, what is its status",
        "how much is the fee for a {} when it is ready",
    ],
    "et": [
        "kui kaua võtab aega, kuni {} valmis on",
        "kaotasin oma {}, mis on staatus",
        "kui suur on {} riigilõiv",
    ],
    "ru": ["сколько ждать пока {} готов", "я потерял {}, какой статус", "какая госпошлина за {}"],
}
# Other catalogues' questions with no state word.
NO_STATUS = [
    "how did the vote on the budget go",
    "kui suur on mu sõidukimaks",
    "какие праздники в декабре",
    "cheapest hour tomorrow",
    "näita viimaseid hääletusi",
    "найди адрес Viru 4",
]

CASES = [
    (lang, template.format(doc))
    for lang in DOCUMENTS
    for template, doc in itertools.product(STATE_QUESTIONS[lang], DOCUMENTS[lang])
]


@pytest.mark.parametrize(("lang", "message"), CASES)
def test_a_state_question_is_a_status_question(lang: str, message: str) -> None:
    assert status_question(message), message


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        (lang, template.format(doc))
        for lang in DOCUMENTS
        for template, doc in itertools.product(ASPECT_QUESTIONS[lang], DOCUMENTS[lang])
    ],
)
def test_an_aspect_of_the_procedure_is_no_status_question(lang: str, message: str) -> None:
    assert not status_question(message), message


@pytest.mark.parametrize("message", NO_STATUS)
def test_other_questions_are_no_status_questions(message: str) -> None:
    assert not status_question(message)


@pytest.mark.parametrize(
    "message", ["application status #12", "номер заявления 12, что с ним", "taotluse nr 12-34", "number: 123"]
)
def test_a_number_given_in_no_identifiers_form_is_a_status_question(message: str) -> None:
    # The citizen means a record of theirs; the service explains the number's form.
    assert status_question(message)


POLICY = RouterPolicy(
    search_limit=5, service_thresholds=Thresholds(minimum=0.77, high=0.82, gap=0.0, min_term_coverage=0.75)
)


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def router(detector: LanguageDetector, endpoints: list, knowledge_cosine: float = 0.9) -> Router:
    # The procedure page is far closer than the service: the usual gate would give it the turn.
    service = cand("check_document_application_status", 0.78, matched=1, of=3)
    return Router(
        matcher(Scripted({"": endpoints})),
        Sessions(),
        detector,
        POLICY,
        services=Scripted({"": [service]}),
        knowledge=Scripted({"": [passage("passport.en", knowledge_cosine)]}),
    )


@pytest.mark.parametrize(("lang", "message"), CASES[::3])
async def test_a_status_question_goes_to_the_service_not_the_procedure_page(
    detector: LanguageDetector, lang: str, message: str
) -> None:
    decision = await router(detector, []).decide("c1", message, lang)  # type: ignore[arg-type]
    assert decision.workflow is Workflow.SERVICE, decision.reasoning
    assert decision.reasoning.startswith("a status question")


async def test_an_endpoint_sharing_more_words_keeps_the_question(detector: LanguageDetector) -> None:
    votings = cand("get_parliament_votings", 0.9, matched=3, of=4)
    decision = await router(detector, [votings]).decide("c1", "what is the status of the budget vote", "en")
    assert decision.workflow is Workflow.API_TOOL_CALLING
