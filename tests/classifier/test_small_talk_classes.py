"""Small talk, capabilities and questions about the conversation, in et/en/ru, over
generated phrasings (openers × bodies × closers, with and without diacritics and
punctuation); requests that open politely stay requests. The capabilities answer is
built from the catalogue's overview, never from fixed demo text."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from classifier_svc.candidates import PriorMessage
from classifier_svc.catalogue_overview import Offer, Overview
from classifier_svc.conversation import HistoryQuestion, classify_history_question, recap
from classifier_svc.layers import small_talk_reply
from classifier_svc.small_talk import SmallTalkKind, classify_small_talk

OPENERS = {
    "en": ["", "hi, ", "hello! "],
    "et": ["", "tere, ", "tervist! "],
    "ru": ["", "привет, ", "здравствуйте! "],
}
BODIES: dict[SmallTalkKind, dict[str, list[str]]] = {
    SmallTalkKind.CAPABILITIES: {
        "en": [
            "what can you do",
            "what can u help me with",
            "how can you help me",
            "what services do you offer",
        ],
        "et": [
            "mida sa oskad",
            "millega sa mind aidata saad",
            "millega te saate aidata",
            "mida sa teha oskad",
        ],
        "ru": ["что ты умеешь", "чем вы можете помочь", "чем ты можешь мне помочь", "что вы умеете делать"],
    },
    SmallTalkKind.IDENTITY: {
        "en": ["who are you", "are you a bot", "are you a real person or a robot", "am i talking to a human"],
        "et": ["kes sa oled", "kes te üldse olete", "kas sa oled robot", "kas sa oled päris inimene"],
        "ru": ["кто ты", "ты бот", "вы живой человек или бот", "ты робот"],
    },
    SmallTalkKind.LANGUAGES: {
        "en": ["what languages do you speak", "which languages do you understand"],
        "et": ["mis keeltes sa räägid", "mis keeles saab kirjutada"],
        "ru": ["на каком языке можно общаться", "на каких языках ты говоришь"],
    },
    # A yes/no question about one language: the answer starts with the yes.
    SmallTalkKind.SPEAKS_LANGUAGE: {
        "en": ["do you speak english", "can i write to you in russian", "do you know estonian"],
        "et": [
            "kas sa räägid eesti keelt",
            "kas saab vene keeles kirjutada",
            "kas sa eesti keelt ikka oskad",
        ],
        "ru": ["ты говоришь по-русски", "можно писать по-эстонски", "вы понимаете по-английски"],
    },
    SmallTalkKind.HOW_ARE_YOU: {
        "en": ["how are you", "how's it going"],
        "et": ["kuidas läheb", "kuidas sul läheb"],
        "ru": ["как дела", "как у вас дела"],
    },
}
CLOSERS = ["", "?", "!", " ?"]
THANKS = {
    "en": ["thanks", "thank you", "thx", "thanks a lot"],
    "et": ["aitäh", "tänan", "suur aitäh", "tänud"],
    "ru": ["спасибо", "спасибо большое", "благодарю"],
}
APPRAISALS = {
    "en": ["", ", that was helpful", ", great", " that's all", ", bye"],
    "et": ["", ", väga abiks", ", see oli kõik", ", tubli", ", head aega"],
    "ru": ["", ", очень помогло", ", это всё", ", пока", " огромное"],
}
# Requests that open like small talk: they go to the catalogue.
REQUESTS = [
    "hi, what are the public holidays in latvia?",
    "what can you tell me about renewing a passport",
    "can you help me with my vehicle tax",
    "thanks, and what about finland?",
    "thanks. now the electricity prices for tomorrow",
    "tere, millised on riigipühad soomes",
    "aitäh, aga näita ka läti omad",
    "mida teha kui kaotasin passi",
    "привет, какие праздники в латвии?",
    "спасибо, а что с налогом на машину?",
    "кто голосовал против законопроекта",
    "who voted against the bill",
]


def _plain(text: str) -> str:
    return unicodedata.normalize(
        "NFC",
        "".join(
            c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c) or c == "\u0306"
        ),
    )


GENERATED = [
    (kind, lang, f"{opener}{body}{closer}")
    for kind, by_lang in BODIES.items()
    for lang, bodies in by_lang.items()
    for opener, body, closer in itertools.product(OPENERS[lang], bodies, CLOSERS)
]


@pytest.mark.parametrize(("kind", "lang", "message"), GENERATED)
def test_small_talk_of_every_class_in_three_languages(kind: SmallTalkKind, lang: str, message: str) -> None:
    talk = classify_small_talk(message)
    assert talk is not None and talk.kind is kind, message
    assert talk.language == lang, message


@given(st.sampled_from(GENERATED))
def test_without_diacritics_and_capitalised_it_is_the_same_class(
    case: tuple[SmallTalkKind, str, str],
) -> None:
    kind, _, message = case
    talk = classify_small_talk(_plain(message).capitalize())
    assert talk is not None and talk.kind is kind


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        (lang, f"{thanks}{appraisal}{closer}")
        for lang in THANKS
        for thanks, appraisal, closer in itertools.product(THANKS[lang], APPRAISALS[lang], ["", "!", "."])
    ],
)
def test_thanks_with_a_word_of_appraisal_is_thanks(lang: str, message: str) -> None:
    talk = classify_small_talk(message)
    assert talk is not None and talk.kind is SmallTalkKind.THANKS and talk.language == lang, message


@pytest.mark.parametrize("message", REQUESTS)
def test_requests_that_open_politely_are_not_small_talk(message: str) -> None:
    assert classify_small_talk(message) is None
    assert classify_history_question(message) is None


CATALOGUE = Overview(
    offers=(
        Offer({"en": "Bus timetables", "et": "Bussiajad", "ru": "Расписание автобусов"}, "Bus times."),
        Offer({"en": "Library loans", "et": "Raamatukogu laenutused"}, "Loans."),
    ),
    topics=(("en", "Fishing permits"), ("et", "Kalapüügiload"), ("ru", "Разрешения на рыбалку")),
)


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_capabilities_list_what_the_catalogue_offers(lang: str) -> None:
    reply = small_talk_reply(SmallTalkKind.CAPABILITIES, lang, CATALOGUE)  # type: ignore[arg-type]
    titles = {
        "en": ["bus timetables", "library loans", "fishing permits"],
        "et": ["bussiajad", "raamatukogu laenutused", "kalapüügiload"],
        "ru": ["расписание автобусов", "library loans", "разрешения на рыбалку"],
    }[lang]
    for title in titles:
        assert title in reply.lower(), (lang, reply)
    # Nothing of the demo catalogue leaks into another catalogue's answer.
    assert "holiday" not in reply.lower() and "riigipüh" not in reply.lower()
    identity = small_talk_reply(SmallTalkKind.IDENTITY, lang, CATALOGUE)  # type: ignore[arg-type]
    assert titles[0] in identity.lower()


HISTORY = [
    PriorMessage("user", "next holiday in finland"),
    PriorMessage("assistant", "Independence Day — 6 Dec 2026"),
    PriorMessage("user", "electricity price at 20:00 tomorrow?"),
    PriorMessage("assistant", "At 20:00 tomorrow the price is 193.87 €/MWh."),
]
HISTORY_QUESTIONS = [
    ("what did i ask you first?", HistoryQuestion.FIRST_QUESTION, "finland"),
    ("what was my first question", HistoryQuestion.FIRST_QUESTION, "finland"),
    ("mis oli mu esimene küsimus", HistoryQuestion.FIRST_QUESTION, "finland"),
    ("какой был мой первый вопрос", HistoryQuestion.FIRST_QUESTION, "finland"),
    ("what was my last question", HistoryQuestion.LAST_QUESTION, "electricity"),
    ("mida ma viimati küsisin", HistoryQuestion.LAST_QUESTION, "electricity"),
    ("что я спросил последним", HistoryQuestion.LAST_QUESTION, "electricity"),
    ("what did i ask", HistoryQuestion.QUESTIONS, "finland"),
    ("mida ma küsisin", HistoryQuestion.QUESTIONS, "electricity"),
    ("о чём я тебя спрашивал?", HistoryQuestion.QUESTIONS, "finland"),
    ("can u repeat the price u just told me", HistoryQuestion.LAST_ANSWER, "193.87"),
    ("korda palun oma viimast vastust", HistoryQuestion.LAST_ANSWER, "193.87"),
    ("повтори что ты сказал", HistoryQuestion.LAST_ANSWER, "193.87"),
    ("what did we talk about", HistoryQuestion.SUMMARY, "finland"),
    ("millest me rääkisime", HistoryQuestion.SUMMARY, "finland"),
    ("о чём мы говорили", HistoryQuestion.SUMMARY, "finland"),
]


@pytest.mark.parametrize(("message", "kind", "fact"), HISTORY_QUESTIONS)
def test_questions_about_the_chat_are_answered_from_its_history(
    message: str, kind: HistoryQuestion, fact: str
) -> None:
    question = classify_history_question(message)
    assert question is not None and question.kind is kind, message
    assert fact in recap(question, HISTORY, question.language).lower()


# Questions about a value the citizen gave earlier, generated: the thing asked about is
# named ("which plate", "какой номер машины"), the verb is giving, naming or mentioning.
OWN_HISTORY = [
    PriorMessage("user", "tax for 345JKL please"),
    PriorMessage("assistant", "The vehicle tax for 345JKL is 50 €."),
    PriorMessage("user", "postal code of viru 4 tallinn"),
    PriorMessage("assistant", "Viru 4, Tallinn: 10140."),
]
OWN_WORDS = {
    "en": [
        f"{lead}{wh} {noun} did i {verb}{to}{when}{closer}"
        for lead, wh, noun, verb, to, when, closer in itertools.product(
            ["", "remind me, "],
            ["what", "which"],
            ["plate", "plate number", "address"],
            ["give", "mention", "tell", "ask about"],
            ["", " you"],
            ["", " earlier", " at the start"],
            ["", "?"],
        )
    ],
    "et": [
        f"{lead}{wh} {noun} ma {to}{verb}{when}{closer}"
        for lead, wh, noun, verb, to, when, closer in itertools.product(
            ["", "tuleta meelde, "],
            ["mis", "millise"],
            ["numbri", "aadressi", "auto numbri"],
            ["andsin", "ütlesin", "mainisin", "kirjutasin"],
            ["", "sulle ", "teile "],
            ["", " enne", " alguses"],
            ["", "?"],
        )
    ],
    "ru": [
        f"{lead}{wh} {noun} я {to}{verb}{when}{closer}"
        for lead, wh, noun, verb, to, when, closer in itertools.product(
            ["", "напомни, "],
            ["какой", "что за"],
            ["номер", "адрес", "номер машины"],
            ["называл", "говорил", "давал", "писал", "указывал"],
            ["", "тебе ", "вам "],
            ["", " раньше", " в начале"],
            ["", "?"],
        )
    ],
}


@given(st.sampled_from([(lang, m) for lang, ms in OWN_WORDS.items() for m in ms]))
def test_a_question_about_a_value_the_citizen_gave_quotes_it(case: tuple[str, str]) -> None:
    lang, message = case
    question = classify_history_question(message)
    assert question is not None and question.language == lang, message
    assert question.kind is not HistoryQuestion.LAST_ANSWER, message
    reply = recap(question, OWN_HISTORY, question.language).lower()
    assert "345jkl" in reply or "viru" in reply, (message, reply)


SUMMARY_ASKS = {
    "en": [
        f"{lead}{verb} {what}"
        for lead, verb, what in itertools.product(
            ["", "please ", "can you "],
            ["sum up", "summarise", "give me a short recap of"],
            ["what we talked about", "what i asked", "what i have asked so far", "our chat"],
        )
    ],
    "et": [
        f"{lead}{verb}, {what}"
        for lead, verb, what in itertools.product(
            ["", "palun "],
            ["tee kokkuvõte", "tee lühike kokkuvõte", "võta kokku"],
            [
                "mida ma küsinud olen",
                "millest me rääkisime",
                "mida ma täna küsisin",
                "mida ma siin seni küsinud olen",
            ],
        )
    ],
    "ru": [
        f"{lead}{verb} {what}"
        for lead, verb, what in itertools.product(
            ["", "пожалуйста, "],
            ["подведи итог,", "кратко перескажи,", "подытожь,"],
            ["о чём мы говорили", "что я спрашивал", "что я сегодня спросил"],
        )
    ],
}


@pytest.mark.parametrize(("lang", "message"), [(lg, m) for lg, ms in SUMMARY_ASKS.items() for m in ms])
def test_a_summary_of_the_chat_names_both_questions(lang: str, message: str) -> None:
    question = classify_history_question(message)
    assert question is not None and question.kind is HistoryQuestion.SUMMARY, message
    assert question.language == lang, message
    reply = recap(question, OWN_HISTORY, question.language).lower()
    assert "345jkl" in reply and "viru" in reply


@pytest.mark.parametrize(
    ("message", "kind", "fact"),
    [
        ("what did I ask you a moment ago?", HistoryQuestion.LAST_QUESTION, "viru"),
        ("mis mu eelmine sõnum oli?", HistoryQuestion.LAST_QUESTION, "viru"),
        ("mille kohta ma sult kõige esimesena küsisin", HistoryQuestion.FIRST_QUESTION, "345jkl"),
        ("а про что был мой самый первый вопрос?", HistoryQuestion.FIRST_QUESTION, "345jkl"),
        ("what did you tell me", HistoryQuestion.LAST_ANSWER, "10140"),
        ("mis sa mulle vastasid", HistoryQuestion.LAST_ANSWER, "10140"),
        ("что ты мне ответил", HistoryQuestion.LAST_ANSWER, "10140"),
    ],
)
def test_first_last_and_the_assistants_own_words(message: str, kind: HistoryQuestion, fact: str) -> None:
    question = classify_history_question(message)
    assert question is not None and question.kind is kind, message
    assert fact in recap(question, OWN_HISTORY, question.language).lower()


@pytest.mark.parametrize(
    "message",
    [
        "remind me when the next holiday in finland is",
        "напомни, когда следующий праздник",
        "tuleta meelde, millal on järgmine riigipüha",
        "what did the riigikogu vote on last week",
        "what is my vehicle tax",
        "what questions can i ask",
        "mis on minu auto maks",
        "какой налог на мою машину",
    ],
)
def test_requests_that_mention_asking_or_my_are_not_about_the_chat(message: str) -> None:
    assert classify_history_question(message) is None


# What an answer said, asked once more ("what was X again"), generated: a question word,
# the past, "again", a thing named, politeness in front; never the citizen's own words.
AGAIN = {
    "en": (["{p}what was the {t} again", "{p}which {t} was that again?"], ["", "sorry ", "sorry, "]),
    "et": (["{p}mis see {t} uuesti oli", "{p}mis {t} see uuesti oli?"], ["", "vabandust, "]),
    "ru": (["{p}какой был {t}, ещё раз?", "{p}какая была {t} ещё раз"], ["", "извини, "]),
}
AGAIN_THINGS = {
    "en": ["price", "address", "postal code"],
    "et": ["hind", "aadress", "postiindeks"],
    "ru": ["цена", "адрес", "индекс"],
}


def _again_cases() -> list[tuple[str, str]]:
    return [
        (lang, template.format(p=polite, t=thing))
        for lang, (templates, polites) in AGAIN.items()
        for template, polite, thing in itertools.product(templates, polites, AGAIN_THINGS[lang])
    ]


@pytest.mark.parametrize(("lang", "message"), _again_cases())
def test_what_was_it_again_is_the_last_answer_quoted(lang: str, message: str) -> None:
    question = classify_history_question(message)
    assert question is not None and question.kind is HistoryQuestion.LAST_ANSWER, message
    assert question.language == lang, message
    assert "10140" in recap(question, OWN_HISTORY, lang)


@pytest.mark.parametrize(
    "message", ["what is the price again tomorrow", "what is the price of electricity", "mis on hind homme"]
)
def test_a_present_question_with_again_is_a_request(message: str) -> None:
    assert classify_history_question(message) is None


# An acknowledgement before a thanks or a goodbye; leaving as a goodbye; a greeting in
# front of a longer small-talk question; asking for attention.
ACKS = {
    "en": ["ok", "cool", "great", "alright"],
    "et": ["ok", "selge", "hästi", "olgu"],
    "ru": ["ок", "ладно", "хорошо", "понятно"],
}
CLOSINGS = {
    SmallTalkKind.THANKS: {
        "en": ["thx", "thanks", "thank you"],
        "et": ["aitäh", "tänan"],
        "ru": ["спасибо", "спс"],
    },
    SmallTalkKind.GOODBYE: {
        "en": ["bye", "see you", "gotta go, bye"],
        "et": ["nägemist", "head aega", "ma lähen nüüd, nägemist"],
        "ru": ["пока", "до свидания", "мне пора, пока, хорошего дня"],
    },
}


@pytest.mark.parametrize(
    ("kind", "lang", "message"),
    [
        (kind, lang, f"{ack}{sep}{closing}{closer}")
        for kind, by_lang in CLOSINGS.items()
        for lang, closings in by_lang.items()
        for ack, sep, closing, closer in itertools.product(ACKS[lang], [" ", ", "], closings, ["", "!"])
    ],
)
def test_an_acknowledgement_before_thanks_or_goodbye(kind: SmallTalkKind, lang: str, message: str) -> None:
    talk = classify_small_talk(message)
    assert talk is not None and talk.kind is kind and talk.language == lang, message


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("good morning! how are you doing today?", SmallTalkKind.HOW_ARE_YOU),
        ("доброе утро) а на каких языках с тобой можно разговаривать?", SmallTalkKind.LANGUAGES),
        ("tere hommikust, kas sa eesti keelt ikka oskad", SmallTalkKind.SPEAKS_LANGUAGE),
        ("tere! do you speak english?", SmallTalkKind.SPEAKS_LANGUAGE),
        ("mis teemadel sul juhendeid on?", SmallTalkKind.CAPABILITIES),
        ("what topics do you have information on", SmallTalkKind.CAPABILITIES),
        ("по каким темам у тебя есть информация?", SmallTalkKind.CAPABILITIES),
        ("hi, got a minute?", SmallTalkKind.GREETING),
        ("tere, mul on küsimus", SmallTalkKind.GREETING),
        ("здравствуйте, есть минутка?", SmallTalkKind.GREETING),
    ],
)
def test_longer_small_talk(message: str, kind: SmallTalkKind) -> None:
    talk = classify_small_talk(message)
    assert talk is not None and talk.kind is kind, message


@pytest.mark.parametrize(
    "message",
    [
        "ok, and what about latvia?",
        "great, now show me the prices for tomorrow",
        "ok thanks, and the tax for 123ABC",
        "ладно, а какие праздники в латвии",
        "selge, aga mis on homme elektri hind",
    ],
)
def test_an_acknowledgement_before_a_request_is_a_request(message: str) -> None:
    assert classify_small_talk(message) is None


@pytest.mark.parametrize("lang", ["en", "et", "ru"])
def test_do_you_speak_it_is_answered_yes_first(lang: str) -> None:
    reply = small_talk_reply(SmallTalkKind.SPEAKS_LANGUAGE, lang, CATALOGUE)  # type: ignore[arg-type]
    assert reply.split()[0].strip("!").lower() in ("yes", "jah", "да")
