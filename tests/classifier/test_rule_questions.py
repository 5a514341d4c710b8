"""Knowledge classes of the answer, in et/en/ru: a yes/no question on a condition asks
what a rule makes of a case ("if a holiday falls on a Saturday, is Monday off?"), not
for dates; a question naming a section's heading with no sentence holding its words
("what kinds of benefits are there") is answered by that section; a question mark
without a question word asks yes or no ("ja lapsetoetust pean eraldi taotlema?")."""

from __future__ import annotations

import pytest

from classifier_svc.candidates import Workflow
from classifier_svc.rag_aspects import aspects_of, is_yes_no, opens_with_condition
from classifier_svc.router import Router, RouterPolicy
from services.language import LanguageDetector
from tests.classifier.layer_support import Scripted, Sessions, cand, matcher, passage
from tests.classifier.test_rag_aspects import ask

RULE_ON_A_CASE = {
    "en": "if a holiday falls on a saturday do we get the monday off instead",
    "et": "kui riigipüha on laupäeval kas saan esmaspäeva vabaks",
    "ru": "если праздник выпал на субботу, дают выходной в понедельник?",
}
NOT_MOVED = {"en": "not moved", "et": "ei tõsteta", "ru": "не переносится"}
NO = {"en": "No.", "et": "Ei.", "ru": "Нет."}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_a_rule_on_a_case_is_a_yes_no_question_on_a_condition(lang: str) -> None:
    question = RULE_ON_A_CASE[lang]
    assert opens_with_condition(question) and is_yes_no(question)
    answer = ask(question, "public-holidays", lang)  # type: ignore[arg-type]
    assert answer.text.startswith(NO[lang]) and NOT_MOVED[lang] in answer.text


# The scripted searches answer by a word every language's question holds.
KEYS = {"en": "holiday", "et": "riigipüha", "ru": "праздник"}


def _router(lang: str) -> Router:
    key = KEYS[lang]
    endpoints = {key: [cand("get_national_holidays", 0.9)]}
    page = passage(
        f"public-holidays.{lang}",
        0.9,
        text="A public holiday that falls on a weekend is not moved.",
        lang=lang,
    )
    return Router(
        matcher(Scripted(endpoints)),
        Sessions(),
        LanguageDetector(),
        RouterPolicy(search_limit=5),
        knowledge=Scripted({key: [page]}),
    )


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_a_rule_on_a_case_goes_to_the_knowledge_base_not_to_the_dates(lang: str) -> None:
    decision = await _router(lang).decide("c1", RULE_ON_A_CASE[lang], lang)  # type: ignore[arg-type]
    assert decision.workflow is Workflow.RAG, decision.reasoning


# The case told first, the rule asked after: a holiday on a weekend, a day off instead.
SUBSTITUTE_DAY = {
    "en": [
        "the holiday is on a saturday this year, right? so do we get the monday off instead?",
        "our holiday falls on a sunday, is it moved to the next working day?",
    ],
    "et": [
        "riigipüha on sel aastal laupäeval, kas saame siis esmaspäeva asemele vabaks?",
        "riigipüha on pühapäeval, kas see tõstetakse esmaspäevale?",
    ],
    "ru": [
        "праздник в этом году в субботу, да? а в понедельник дадут выходной вместо него?",
        "праздник выпадает на воскресенье, его перенесут на понедельник?",
    ],
}


@pytest.mark.parametrize(("lang", "question"), [(lg, q) for lg, qs in SUBSTITUTE_DAY.items() for q in qs])
async def test_a_day_off_moved_from_a_weekend_is_a_rule_question(lang: str, question: str) -> None:
    decision = await _router(lang).decide("c1", question, lang)  # type: ignore[arg-type]
    assert decision.workflow is Workflow.RAG, decision.reasoning


DATED = {
    "en": "if a holiday falls on 2027-05-01 do we get the monday off",
    "et": "kui riigipüha on 1.05.2027 kas saan esmaspäeva vabaks",
    "ru": "если праздник 1.05.2027, дают выходной в понедельник?",
}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
async def test_a_condition_with_a_date_is_looked_up_as_usual(lang: str) -> None:
    decision = await _router(lang).decide("c1", DATED[lang], lang)  # type: ignore[arg-type]
    assert decision.workflow is not Workflow.RAG or "condition" not in decision.reasoning


BENEFITS = {
    "en": "what kinds of benefits are there anyway",
    "et": "mis toetusi üldse on",
    "ru": "а какие вообще пособия по безработице бывают",
}
BENEFIT_FACT = {"en": "fixed daily rate", "et": "päevamääraga", "ru": "фиксированной дневной"}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_a_question_naming_a_section_is_answered_by_the_section(lang: str) -> None:
    answer = ask(BENEFITS[lang], "unemployment", lang)  # type: ignore[arg-type]
    assert BENEFIT_FACT[lang] in answer.text, answer.text


NO_QUESTION_WORD = {
    "en": "and we have to apply for child allowance separately?",
    "et": "ja lapsetoetust pean eraldi taotlema?",
    "ru": "а пособие на ребенка надо отдельно просить?",
}
AUTOMATIC = {"en": "automatically", "et": "automaatselt", "ru": "автоматически"}
NAMING = {
    "en": "deadline to register a birth?",
    "et": "sünni registreerimise tähtaeg?",
    "ru": "срок регистрации рождения?",
}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_a_question_mark_without_a_question_word_asks_yes_or_no(lang: str) -> None:
    question = NO_QUESTION_WORD[lang]
    assert is_yes_no(question, aspects_of(question)[0])
    answer = ask(question, "birth-registration", lang)  # type: ignore[arg-type]
    assert answer.verdict == "no" and AUTOMATIC[lang] in answer.text
    # Naming what is asked ("the deadline?") asks for it, not yes or no.
    assert not is_yes_no(NAMING[lang], aspects_of(NAMING[lang])[0])
