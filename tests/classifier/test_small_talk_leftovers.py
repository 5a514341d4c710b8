"""Small talk with words around it, in et/en/ru: a thanks beside praise or "nothing
else", a chat interjection, a question word typed short, an introduction by name (and
the name asked back later), a greeting with chit-chat no layer takes; and questions
about the chat itself: the first and second question with what each was about, a place
the citizen asked about named by what was found, and a question word of another
language that is no question about the chat."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier_svc.candidates import PriorMessage
from classifier_svc.catalogue_overview import Overview
from classifier_svc.conversation import HistoryQuestion, classify_history_question, recap
from classifier_svc.layers import small_talk_reply
from classifier_svc.small_talk import SmallTalkKind, classify_small_talk, name_given, small_talk_lead

PRAISE = {
    "en": ["you were very helpful", "that was really useful", "well done", "you're great"],
    "et": ["sa oled ikka tubli", "see oli väga abiks", "tubli töö", "abi eest"],
    "ru": ["вы очень помогли", "ты молодец", "это было полезно", "за помощь"],
}
THANKS = {"en": ["thanks", "thank you", "thx"], "et": ["aitäh", "tänan", "tänud"], "ru": ["спасибо", "спс"]}
NOTHING = {
    "en": ["nothing really", "no, that's all", "nope"],
    "et": ["ei midagi tegelt", "ei, see on kõik", "mitte midagi"],
    "ru": ["нет, больше ничего", "ничего", "это всё"],
}
BYE = {"en": ["bye", "have a nice day"], "et": ["head päeva", "nägemist"], "ru": ["всего хорошего", "пока"]}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@settings(deadline=None)
@given(data=st.data())
def test_thanks_beside_praise_or_nothing_else_is_thanks(lang: str, data: st.DataObject) -> None:
    pieces = [data.draw(st.sampled_from(THANKS[lang]))]
    if data.draw(st.booleans()):
        pieces.insert(0, data.draw(st.sampled_from(NOTHING[lang] + PRAISE[lang])))
    else:
        pieces.append(data.draw(st.sampled_from(PRAISE[lang])))
    if data.draw(st.booleans()):
        pieces.append(data.draw(st.sampled_from(BYE[lang])))
    message = ", ".join(pieces) + data.draw(st.sampled_from(["", "!", "."]))
    talk = classify_small_talk(message)
    assert talk is not None and talk.kind is SmallTalkKind.THANKS, message
    assert talk.language == lang, message


@pytest.mark.parametrize(
    "request_",
    [
        "thanks, and what about latvia?",
        "thanks, you were helpful, now show tomorrow's prices",
        "aitäh, nüüd näita homseid hindu",
        "спасибо, а какие праздники в декабре?",
    ],
)
def test_a_request_after_thanks_stays_a_request(request_: str) -> None:
    assert classify_small_talk(request_) is None


INTERJECTIONS = {"en": ["lol", "haha", "hmm"], "et": ["lol", "haha", "ahaa"], "ru": ["лол", "хаха", "хм"]}
IDENTITY = {
    "en": "are you a real person or a bot",
    "et": "kas sa oled päris inimene või robot",
    "ru": "ты живой человек или бот",
}


@pytest.mark.parametrize(("lang", "interjection"), [(lg, i) for lg, xs in INTERJECTIONS.items() for i in xs])
def test_a_chat_interjection_leaves_small_talk_small_talk(lang: str, interjection: str) -> None:
    talk = classify_small_talk(f"{IDENTITY[lang]} {interjection}")
    assert talk is not None and talk.kind is SmallTalkKind.IDENTITY


@pytest.mark.parametrize(
    ("message", "lang"),
    [("wat can u do", "en"), ("wht can you do", "en"), ("mda sa oskad", "et"), ("чтл ты умеешь", "ru")],
)
def test_a_question_word_typed_short_still_asks_capabilities(message: str, lang: str) -> None:
    talk = classify_small_talk(message)
    assert talk is not None and talk.kind is SmallTalkKind.CAPABILITIES and talk.language == lang


GREETINGS = {"en": ["hi", "hello", "hey"], "et": ["tere", "tervist"], "ru": ["привет", "здравствуйте"]}
INTRODUCE = {
    "en": ["im {n}", "i'm {n}", "my name is {n}"],
    "et": ["mina olen {n}", "mu nimi on {n}"],
    "ru": ["я {n}", "меня зовут {n}"],
}
NAMES = ["Marko", "mari", "Олег", "Kadri"]


@pytest.mark.parametrize(
    ("lang", "greeting", "template", "name"),
    [
        (lang, g, t, n)
        for lang in ("en", "et", "ru")
        for g, t, n in itertools.product(GREETINGS[lang], INTRODUCE[lang], NAMES)
    ],
)
def test_an_introduction_gives_the_name_and_is_asked_back(
    lang: str, greeting: str, template: str, name: str
) -> None:
    message = f"{greeting}, {template.format(n=name)}"
    talk = classify_small_talk(message)
    assert talk is not None and talk.kind is SmallTalkKind.INTRODUCTION, message
    assert name_given(message) == name[:1].upper() + name[1:]
    reply = small_talk_reply(talk.kind, lang, Overview(()), talk.name)  # type: ignore[arg-type]
    # Greeted by name only when it was written as one.
    assert (name in reply) is name[:1].isupper()
    history = [PriorMessage("user", message), PriorMessage("assistant", reply)]
    asked = {"en": "what's my name?", "et": "kas mäletad mu nime", "ru": "как меня зовут?"}[lang]
    question = classify_history_question(asked)
    assert question is not None and question.kind is HistoryQuestion.NAME
    assert name_given(message) in recap(question, history, lang)  # type: ignore[arg-type]


@pytest.mark.parametrize("message", ["I am unemployed", "ma olen töötu", "я безработный"])
def test_i_am_without_a_greeting_is_no_introduction(message: str) -> None:
    talk = classify_small_talk(message)
    assert talk is None or talk.kind is not SmallTalkKind.INTRODUCTION


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_a_name_never_given_is_said_to_be_unknown(lang: str) -> None:
    asked = {"en": "what's my name?", "et": "kas mäletad mu nime", "ru": "как меня зовут?"}[lang]
    question = classify_history_question(asked)
    assert question is not None
    reply = recap(question, [PriorMessage("user", "hello"), PriorMessage("assistant", "Hi!")], lang)  # type: ignore[arg-type]
    assert reply and "Hello" not in reply


CHIT_CHAT = {"en": "busy wednesday huh", "et": "ilus ilm täna", "ru": "жарко сегодня"}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
@pytest.mark.parametrize("greeting_at", [0, 1])
def test_a_greeting_with_chit_chat_leads_small_talk(lang: str, greeting_at: int) -> None:
    greeting = GREETINGS[lang][greeting_at]
    lead = small_talk_lead(f"{greeting}! {CHIT_CHAT[lang]}")
    assert lead is not None and lead.kind is SmallTalkKind.GREETING and lead.language == lang
    # Asking anything, or a number, is no small talk.
    assert small_talk_lead(f"{greeting}, {CHIT_CHAT[lang]}?") is None
    assert small_talk_lead(f"{greeting}, 123ABC") is None


FIRST_AND_SECOND = {
    "en": "what was my first question and the second",
    "et": "mis oli mu esimene küsimus ja mis teine",
    "ru": "какой был мой первый вопрос и второй",
}


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_first_and_second_question_are_listed_with_what_they_were_about(lang: str) -> None:
    question = classify_history_question(FIRST_AND_SECOND[lang])
    assert question is not None and question.kind is HistoryQuestion.QUESTIONS
    history = [
        PriorMessage("user", "ID7654321 seis"),
        PriorMessage("assistant", "Application status — ID7654321:\nStatus: received"),
        PriorMessage("user", "elekter täna odavaim millal"),
        PriorMessage("assistant", "Elektri börsihinnad — 14. aprill 2027:\n• 05:00–06:00 — 34,44 €/MWh"),
    ]
    reply = recap(question, history, lang)  # type: ignore[arg-type]
    assert "ID7654321" in reply and "Elektri börsihinnad" in reply


@pytest.mark.parametrize(
    ("lang", "asked"),
    [
        ("en", "what city did i ask about?"),
        ("et", "mis linna ma küsisin?"),
        ("ru", "а какой город я спрашивал?"),
    ],
)
def test_a_place_asked_about_is_named_by_what_was_found(lang: str, asked: str) -> None:
    question = classify_history_question(asked)
    assert question is not None and question.kind is HistoryQuestion.VALUES
    history = [
        PriorMessage("user", "адрес ранна пст 1"),
        PriorMessage(
            "assistant", "Address search — Ranna pst 1:\n• Pärnu maakond, Pärnu linn, Ranna pst 1, 80010"
        ),
    ]
    assert "Pärnu" in recap(question, history, lang)  # type: ignore[arg-type]


@pytest.mark.parametrize("message", ["mis raha ma siis saan", "mis ma siis saan", "mida ma saan teha"])
def test_an_estonian_question_like_an_english_verb_is_no_question_about_the_chat(message: str) -> None:
    assert classify_history_question(message) is None
