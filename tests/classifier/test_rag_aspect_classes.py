"""Knowledge-answer classes, generated over languages and forms: why / what it gives,
"сколько" before a verb, Russian typed in Latin letters, losing a job (no lost document),
a situation leading the question, a thing only one sentence names, and a status word
beside an aspect of the procedure (the knowledge base's, not the status service's)."""

from __future__ import annotations

import pytest

from classifier_svc.layer_choice import status_question
from classifier_svc.rag_aspects import Aspect, aspects_of
from services.language import cyrillic_reading
from tests.classifier.test_rag_aspects import ask

WHY = {
    "en": ["why should i {v}", "whats the point of {v}", "what do i actually get from {v}"],
    "et": ["miks peaks {v}", "milleks {v}", "mis kasu on, kui {v}"],
    "ru": ["зачем {v}", "для чего {v}", "какой смысл {v}"],
}
WHY_VERB = {
    "en": "registering my place of residence",
    "et": "elukoha registreerima",
    "ru": "регистрировать место жительства",
}
WHY_FACT = {"en": "kindergarten", "et": "lasteaia", "ru": "детском саду"}


@pytest.mark.parametrize(("lang", "template"), [(lang, t) for lang, ts in WHY.items() for t in ts])
def test_why_is_answered_by_what_it_gives(lang: str, template: str) -> None:
    question = template.format(v=WHY_VERB[lang])
    assert Aspect.WHY in aspects_of(question)[0], question
    assert WHY_FACT[lang] in ask(question, "residence", lang).text.lower(), question  # type: ignore[arg-type]


@pytest.mark.parametrize("verb", ["рассматривают", "ждать", "делают", "оформляют", "готовят", "регистрируют"])
@pytest.mark.parametrize("skolko", ["сколько", "скока", "сколко"])
def test_skolko_before_a_verb_asks_how_long(skolko: str, verb: str) -> None:
    assert aspects_of(f"{skolko} {verb} заявление")[0][:1] == (Aspect.TIME,)


@pytest.mark.parametrize("question", ["сколько стоит паспорт", "сколько платить за паспорт"])
def test_skolko_with_money_still_asks_the_cost(question: str) -> None:
    assert aspects_of(question)[0][:1] == (Aspect.COST,)


@pytest.mark.parametrize(
    ("latin", "aspect"),
    [
        ("skolko let dejstvuet id karta", Aspect.VALIDITY),
        ("skolko let deystvuyut prava", Aspect.VALIDITY),
        ("skolko stoit pasport", Aspect.COST),
        ("kakie dokumenty nuzhny", Aspect.DOCUMENTS),
        ("poteryal pasport", Aspect.LOST),
    ],
)
def test_russian_in_latin_letters_asks_what_its_cyrillic_asks(latin: str, aspect: Aspect) -> None:
    assert aspect in aspects_of(cyrillic_reading(latin))[0], cyrillic_reading(latin)


def test_russian_in_latin_letters_is_answered_from_the_page() -> None:
    assert "5 лет" in ask("skolko let dejstvuet id karta", "id-card", "ru").text


@pytest.mark.parametrize(
    ("job", "document"),
    [
        ("i lost my job, how do i register as unemployed", "i lost my passport, how do i get a new one"),
        ("kaotasin töö, kuidas end töötuks registreerida", "kaotasin passi, kuidas uus saada"),
        ("потерял работу, как встать на учёт", "потерял паспорт, как получить новый"),
    ],
)
def test_losing_a_job_is_no_lost_document(job: str, document: str) -> None:
    assert Aspect.LOST not in aspects_of(job)[0]
    assert Aspect.LOST in aspects_of(document)[0]


LEADING = {
    "en": (
        "after i send the notice of residence how long until the local government registers it",
        "10 working",
    ),
    "et": ("kui olen elukohateate saatnud, kui kaua omavalitsus seda registreerib", "10 tööpäeva"),
    "ru": (
        "после того как отправлю уведомление, сколько времени самоуправление его регистрирует",
        "10 рабочих",
    ),
}


@pytest.mark.parametrize("lang", LEADING)
def test_after_a_leading_situation_what_is_asked_is_answered(lang: str) -> None:
    question, fact = LEADING[lang]
    assert fact in ask(question, "residence", lang).text  # type: ignore[arg-type]


RARE_THING = {
    "en": (["where do i get the pin codes", "and the pin codes, where are they?"], "envelope"),
    "et": (["kust ma pin koodid saan", "aga pin koodid kust?"], "ümbrikus"),
    "ru": (["где взять пин коды", "а пин коды где взять потом?"], "конверте"),
}


@pytest.mark.parametrize(
    ("lang", "question"), [(lang, q) for lang, (qs, _) in RARE_THING.items() for q in qs]
)
def test_a_thing_one_sentence_names_is_quoted(lang: str, question: str) -> None:
    assert RARE_THING[lang][1] in ask(question, "id-card", lang).text  # type: ignore[arg-type]


BRING_WHEN_COLLECTING = {
    "en": ("what do i need to bring when i pick up the new card", "old card"),
    "et": ("mida pean kaasa võtma, kui lähen uut kaarti kätte saama", "vana kaart"),
    "ru": ("что взять с собой, когда пойду забирать новую карту", "старую карту"),
}


@pytest.mark.parametrize("lang", BRING_WHEN_COLLECTING)
def test_what_to_bring_when_collecting_comes_from_the_collecting_section(lang: str) -> None:
    question, fact = BRING_WHEN_COLLECTING[lang]
    assert fact in ask(question, "id-card", lang).text  # type: ignore[arg-type]


PROCEDURE_WITH_STATE_WORD = {
    "en": ["after applying for a new {d} when will it be ready", "how long until a {d} is ready"],
    "et": ["kaua {d} valmimine aega võtab", "mida pean kaasa võtma kui {d} valmis on"],
    "ru": ["сколько ждать пока {d} будет готов", "что взять с собой когда {d} готов"],
}
DOCS = {"en": ["id card", "passport"], "et": ["id kaardi", "passi"], "ru": ["паспорт", "id карта"]}


@pytest.mark.parametrize(
    "message",
    [t.format(d=d) for lang, ts in PROCEDURE_WITH_STATE_WORD.items() for t in ts for d in DOCS[lang]],
)
def test_a_state_word_beside_an_aspect_of_the_procedure_is_no_status_question(message: str) -> None:
    assert not status_question(message), message


# "Do I need X (or is Y enough)?" answered by a sentence that permits it with Y and
# without X: not needed. Generated over the ways of asking in three languages.
NECESSITY = {
    "en": (
        ["do i {a}need a passport {w}", "do i {a}need a passport {w} or is my id card enough"],
        ["", "actually ", "really "],
        ["to go to latvia with my id card", "for a trip to finland, i have an id card"],
    ),
    "et": (
        ["kas mul on {a}passi vaja {w}", "kas {a}passi on vaja {w} või piisab id-kaardist"],
        ["", "ikka "],
        ["et id-kaardiga lätti sõita", "soome reisiks, mul on id-kaart"],
    ),
    "ru": (
        ["{a}нужен ли паспорт {w}", "{a}нужен ли паспорт {w} или хватит id-карты"],
        ["", "а "],
        ["чтобы поехать в латвию, у меня есть id-карта", "для поездки в финляндию с id-картой"],
    ),
}


def _necessity_cases() -> list[tuple[str, str]]:
    return [
        (lang, template.format(a=adverb, w=where))
        for lang, (templates, adverbs, wheres) in NECESSITY.items()
        for template in templates
        for adverb in adverbs
        for where in wheres
    ]


@pytest.mark.parametrize(("lang", "question"), _necessity_cases())
def test_what_the_page_permits_with_something_else_is_not_needed(lang: str, question: str) -> None:
    answer = ask(question, "passport", lang)  # type: ignore[arg-type]
    assert answer.verdict == "no", (question, answer.text)


@pytest.mark.parametrize(
    ("lang", "question"),
    [
        ("en", "do i need a passport to travel to thailand"),
        ("et", "kas mul on passi vaja, et tais käia"),
        ("ru", "нужен ли паспорт чтобы полететь в таиланд"),
    ],
)
def test_a_need_the_page_states_is_never_no(lang: str, question: str) -> None:
    # The page says a passport is needed outside the EU: never "not needed" (yes where
    # the sentence settles it; Thailand's place outside the EU the page cannot say).
    verdict = ask(question, "passport", lang).verdict  # type: ignore[arg-type]
    assert verdict != "no", question
    if lang == "en":
        assert verdict == "yes", question


@pytest.mark.parametrize(
    ("question", "topic", "fact"),
    [
        ("how many years is a driving licence good for", "driving-licence", "10 years"),
        ("how many years is the id card good for", "id-card", "5 years"),
        ("for how long is my passport good for", "passport", "10 years"),
    ],
)
def test_what_a_document_is_good_for_in_years_is_its_validity(question: str, topic: str, fact: str) -> None:
    assert aspects_of(question)[0] == (Aspect.VALIDITY,), question
    assert fact in ask(question, topic, "en").text, question


# "Do I have to bring the paper?": the sentence that says the act asked about ("… so you
# do not have to bring a paper copy") decides, not one with more of the question's other
# words (the office's name).
NECESSARY_ACT = {
    "en": [
        "renewing it - do i have to bring the paper from my doctor to the transport administration office?",
        "must i bring the health certificate on paper to the transport administration service office?",
    ],
    "et": [
        "kas ma pean perearsti tõendi paberil Transpordiameti teenindusbüroosse kaasa võtma?",
    ],
    "ru": [
        "нужно ли приносить бумажную справку от врача в бюро обслуживания Транспортного департамента?",
    ],
}


@pytest.mark.parametrize(("lang", "question"), [(lg, q) for lg, qs in NECESSARY_ACT.items() for q in qs])
def test_the_sentence_saying_the_act_asked_decides(lang: str, question: str) -> None:
    answer = ask(question, "driving-licence", lang)  # type: ignore[arg-type]
    assert answer.verdict == "no", answer.text
