"""Questions about the conversation itself ("What did we talk about?", "Mida ma
küsisin?", "Что вы ответили?"), answered from the history the GUI sends.

Rules recognise the question (word classes in en/et/ru, classifier_svc/lexicon.py); the
answer is a plain recap: the first, the last or all of the citizen's questions, the last
answer, or the last exchanges. With an LLM configured, a DSPy module
answers from the history instead (see ConversationAnswerer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from classifier_svc.candidates import PriorMessage
from classifier_svc.layer_choice import identifiers
from classifier_svc.lexicon import Concept, Found, Lexicon, fold
from classifier_svc.messages import NAME_UNKNOWN, YOUR_NAME
from classifier_svc.small_talk import name_given
from services.language import LANGUAGE_NAMES, Lang
from services.llm import counted
from services.text import STOPWORDS

_DIGIT = re.compile(r"\d")

if TYPE_CHECKING:
    import dspy


class HistoryQuestion(StrEnum):
    SUMMARY = "summary"
    # What the citizen asked: all of it, the first or the last question.
    QUESTIONS = "questions"
    FIRST_QUESTION = "first_question"
    LAST_QUESTION = "last_question"
    # How many questions the citizen has asked.
    QUESTION_COUNT = "question_count"
    # A value the citizen gave: a plate, an application number, an address, a country.
    VALUES = "values"
    LAST_ANSWER = "last_answer"
    # The answer to the citizen's first question ("what did you say about my first question").
    FIRST_ANSWER = "first_answer"
    # The name the citizen introduced themselves with ("what's my name?", "как меня зовут").
    NAME = "name"


# Questions about what the citizen said (not about the assistant's answers).
CITIZENS_WORDS = frozenset(
    {
        HistoryQuestion.QUESTIONS,
        HistoryQuestion.FIRST_QUESTION,
        HistoryQuestion.LAST_QUESTION,
        HistoryQuestion.QUESTION_COUNT,
        HistoryQuestion.VALUES,
    }
)


class Asked(StrEnum):
    """Which exchanges a question about the chat is about."""

    ALL = "all"
    FIRST = "first"
    LAST = "last"


@dataclass(frozen=True)
class ConversationQuestion:
    kind: HistoryQuestion
    language: Lang
    # For VALUES: an identifier (a plate, an application number: quoted from the chat)
    # or another value (an address, a country: the question and what it was read as).
    identifier: bool = False
    asked: Asked = Asked.ALL
    # What an answer asked about was about ("what did you say about the holidays", "что
    # ты сказал про каникулы"): the words after "about", as typed.
    about: tuple[str, ...] = ()


_LANGS: tuple[Lang, ...] = ("en", "et", "ru")
# Word classes per language (classifier_svc/lexicon.py): a question about the chat joins
# a question word with asking/saying/talking and a person ("what did I ask first?").
_WORDS: dict[str, tuple[str, str, str]] = {
    "what": (
        "what, which",
        "mida, mis, millest, millise, millised, mille, mille kohta, missugune",
        "что, о чем, про что, какой, какие, какую, каким, чем",
    ),
    # The citizen's questions and messages ("my last message", "mu eelmine sõnum").
    "asked": (
        "asked, ask, question, questions, message, messages",
        "küsisin, küsisime, küsinud, küsin, küsimus, küsimused, küsimuse, sõnum, sõnumi, sõnumit, esitanud"
        ", esitasin",
        "спрашивал, спрашивала, спросил, спросила, спрашивали, вопрос, вопросы, сообщение, сообщения, задал"
        ", задала, задавал, задавала",
    ),
    # What a citizen does with a value: gives, names, mentions it ("what plate did I give
    # you?", "какой номер я тебе называл?"). Whose words they are, the subject tells.
    "told": (
        "gave, give, given, mentioned, mention, named, told, tell, said, say, typed, wrote, entered, sent"
        ", provided, checked, check, looked up, searched, used",
        "andsin, mainisin, nimetasin, ütlesin, kirjutasin, sisestasin, saatsin, andnud, maininud"
        ", kontrollida, kontrollisin, lasin, vaatasin, otsisin, kasutasin, kasutanud",
        "называл, назвал, называла, назвала, говорил, говорила, сказал, сказала, писал, написал, писала"
        ", написала, давал, дал, давала, дала, упоминал, упомянул, указал, указывал, вводил, ввел, ввёл"
        ", проверял, проверяла, проверить, искал, искала, использовал, использовала",
    ),
    # What an answer asked about was about: the words after it name the topic.
    "about": (
        "about, regarding, concerning",
        "kohta, osas, teemal",
        "про, о, об, насчёт, насчет, по поводу, относительно",
    ),
    # The kind of value asked about: an identifier the citizen typed ...
    "identifier": (
        "plate, plates, number, numbers, registration, code, codes",
        "number, numbri, numbrit, numbreid, numbrid, numbrimärk, numbrimärki, registreerimisnumber, kood"
        ", koodi",
        "номер, номера, номеров, знак, код, кода",
    ),
    # ... or another value (a place, a country, a year).
    "value": (
        "address, addresses, street, country, countries, city, town, year, date",
        "aadress, aadressi, aadresse, tänav, riik, riigi, riiki, linn, linna, aasta, kuupäev",
        "адрес, адреса, улица, улицу, страна, страну, страны, город, год, дата, дату",
    ),
    "how_many": ("how many, number of", "mitu, mitmeid, kui palju", "сколько"),
    # One's own name, and remembering or knowing it ("kas mäletad mu nime", "как меня зовут").
    "name": ("name, called", "nimi, nime, nimeks, kutsutakse", "имя, зовут, звать"),
    "remember": (
        "remember, recall, know, forgot, forgotten",
        "mäletad, mäletate, mäleta, tead, teate, unustasid, unustasin",
        "помнишь, помните, знаешь, знаете, забыл, забыла",
    ),
    "how": ("how", "kuidas", "как"),
    "me": ("i, me, my", "ma, mina, mu, minu", "я, мой, мои, моя, меня"),
    "you": (
        "you, u, your",
        "sa, sina, te, teie, su, sinu, sul, sult, sinult, teilt, sulle, teile",
        "ты, вы, твой, ваш, тебя, вас, тебе, вам",
    ),
    # The subject of the verb: "what did I tell you" is the citizen's, "what did you tell
    # me" the assistant's.
    "i_subject": ("i", "ma, mina", "я"),
    "you_subject": ("you, u", "sa, sina, te, teie", "ты, вы"),
    "said": (
        "said, say, tell, answered, told, replied, wrote",
        "vastasid, vastasite, ütlesid, ütlesite, vastus, vastuse, kirjutasid",
        "сказал, сказали, ответил, ответили, ответ, написал, говорил",
    ),
    "repeat": (
        "repeat, again, once more",
        "korda, kordad, uuesti, veelkord, veel kord",
        "повтори, повторите, еще раз, снова",
    ),
    "remind": ("remind, remind me", "tuleta meelde, meenuta", "напомни, напомните"),
    "first": (
        "first, beginning, start, originally",
        "esimene, esimesena, alguses, kõigepealt",
        "первый, первым, сначала, вначале, в начале",
    ),
    # A second question beside the first ("what was my first question and the second"):
    # the questions in order.
    "second": ("second", "teine, teisena, teiseks", "второй, вторым, второе"),
    "last": (
        "last, previous, just, before, latest, ago, moment ago, minute ago",
        "viimane, viimati, eelmine, eelmise, just, enne, äsja, hiljuti, hetk tagasi",
        "последний, предыдущий, только что, раньше, перед этим",
    ),
    "talked": (
        "talk, talked, discuss, discussed, chat, chatted, conversation, speak, spoke",
        "rääkisime, vestlesime, arutasime, rääkinud, vestlus, vestlusest",
        "говорили, разговаривали, беседовали, обсуждали, разговор, разговора",
    ),
    "we": ("we, us, our", "me, meie, meil", "мы, нас, наш"),
    "summary": (
        "summarise, summarize, summary, recap, sum up, sum it up",
        "kokkuvõte, kokkuvõtet, kokku, võta kokku",
        "подведи, итог, итоги, резюме, подытожь, перескажи",
    ),
    # Asking about what was said, not about what can be asked: a past tense or "just".
    "past": (
        "did, was, were, have, had, just, earlier",
        "küsisin, küsisime, küsinud, oli, olid, rääkisime, vastasid, vastasite, ütlesid, ütlesite, viimati"
        ", esitanud, esitasin",
        "спрашивал, спрашивала, спросил, спросила, был, была, было, сказал, сказали, ответил, ответили"
        ", говорили, задал, задала, задавал, задавала",
    ),
    "so_far": (
        "so far, until now, today, here",
        "seni, siiani, praeguseni, täna, siin",
        "до этого, пока, уже, сегодня, здесь, тут",
    ),
    # How the recap is asked for ("make a short summary", "самый первый"): no topic.
    "manner": (
        "please, short, brief, briefly, quick, quickly, make, give me, very, again, sorry, pardon",
        "palun, lühike, lühidalt, lühikese, tee, anna, kõige, olen, oled, vabandust, vabanda",
        "пожалуйста, коротко, кратко, покороче, сделай, дай, самый, мне, извини, извините, прости",
    ),
}
_LEXICON = Lexicon(
    [
        Concept.of(f"{name}_{lang}", words[i])
        for name, words in _WORDS.items()
        for i, lang in enumerate(_LANGS)
    ]
)
MAX_WORDS = 14
# Words beyond the classes above: one ("can u repeat the price u just told me"), or a
# few when the question is about the citizen's own words, which name the thing asked
# about ("what was the plate number I asked about earlier?").
MAX_EXTRA = 1
MAX_EXTRA_OWN_WORDS = 3


def _langs(found: Found, name: str) -> list[Lang]:
    return [lang for lang in _LANGS if f"{name}_{lang}" in found]


def _first_at(found: Found, name: str) -> int | None:
    positions = [p for lang in _LANGS for p in found.positions.get(f"{name}_{lang}", ())]
    return min(positions) if positions else None


# A sentence's end, where a remark beside the question starts ("what number did I use?
# I wrote it down somewhere", "какой номер я назвал? жена говорит, я перепутал").
_SENTENCE_END = re.compile(r"(?<=[?!.])\s+")
# A remark asks nothing: no question mark, no number, no order, and it is short.
_ORDER = Lexicon(
    [
        Concept.of(
            "order",
            "show, tell, find, give, check, look up, search",
            "please show, please tell, please find, please give, please check, and show, and tell",
            "näita, ütle, leia, anna, kontrolli, otsi, vaata",
            "palun näita, palun ütle, palun leia, palun anna, palun kontrolli, ja näita",
            "покажи, скажи, найди, дай, проверь, посмотри, поищи",
            "пожалуйста покажи, пожалуйста скажи, пожалуйста найди, пожалуйста проверь, и покажи",
        )
    ]
)
MAX_REMARK_WORDS = 12
ORDER_OPENS = 1


def classify_history_question(message: str) -> ConversationQuestion | None:
    """A question about the conversation itself, or None. It must be one as a whole:
    at most a word or two beyond the classes above and function words, no numbers; or
    one sentence that is one, with remarks beside it that ask nothing."""
    whole = _classify_history(message)
    if whole is not None:
        return whole
    sentences = [s for s in _SENTENCE_END.split(message.strip()) if s.strip()]
    if not 1 < len(sentences) <= 3:
        return None
    questions = [(i, q) for i, s in enumerate(sentences) if (q := _classify_history(s)) is not None]
    if len(questions) != 1:
        return None
    at, question = questions[0]
    remarks = [s for i, s in enumerate(sentences) if i != at]
    if any(_remark_asks(r) for r in remarks):
        return None
    return question


def _remark_asks(sentence: str) -> bool:
    return (
        "?" in sentence
        or bool(_DIGIT.search(sentence))
        or len(sentence.split()) > MAX_REMARK_WORDS
        # An order opens its sentence ("show me the prices", "palun näita"); "ei leia
        # paberit" (I can't find the paper), "naine ütleb" (my wife says) tell, not ask.
        or any(p < ORDER_OPENS for p in _ORDER.find(sentence).positions.get("order", ()))
    )


def _classify_history(message: str) -> ConversationQuestion | None:
    text = " ".join(message.strip().split())
    if not text or _DIGIT.search(text):
        return None
    found = _LEXICON.find(text)
    # Politeness and manner ("please give me a short …") do not make a question longer.
    manner = sum(len(found.positions.get(f"manner_{lang}", ())) for lang in _LANGS)
    if not found.words or found.words - manner > MAX_WORDS:
        return None
    votes = [name.rsplit("_", 1)[-1] for name in found.positions if not name.startswith("manner")]
    lang: Lang = max(_LANGS, key=lambda lg: (votes.count(lg), lg == "en"))
    # A class counts in the message's language: an Estonian "saan" (I get) that looks like
    # an English "say" does not make "mis raha ma siis saan" a question about the chat.
    has = lambda name: f"{name}_{lang}" in found  # noqa: E731
    i_at, you_at = _first_at(found, "i_subject"), _first_at(found, "you_subject")
    citizen_speaks = i_at is not None and (you_at is None or i_at < you_at)
    # The citizen's own words: their questions or messages, or a value they gave.
    own_words = (has("asked") and has("me")) or (has("told") and citizen_speaks)
    extra = [t for t in found.uncovered() if t not in STOPWORDS]
    # The topic beside "about" names what was said; it is no extra word of the question.
    # It follows "about", "про"; it comes before the Estonian postposition ("… kohta").
    about_at = _first_at(found, "about") if has("about") else None
    beside = [
        t
        for i, t in enumerate(found.tokens)
        if about_at is not None and (i < about_at if lang == "et" else i > about_at)
    ]
    about = tuple(t for t in beside if t in extra)
    if len(extra) - len(about) > (MAX_EXTRA_OWN_WORDS if own_words else MAX_EXTRA) or len(about) > 3:
        return None
    if has("name") and has("me") and (has("what") or has("remember") or has("how")):
        return ConversationQuestion(HistoryQuestion.NAME, lang)
    if has("summary") and (has("talked") or has("we") or own_words):
        return ConversationQuestion(HistoryQuestion.SUMMARY, lang)
    answer_kind = HistoryQuestion.FIRST_ANSWER if has("first") else HistoryQuestion.LAST_ANSWER
    if has("repeat") and (has("said") or has("you") or has("last")) and not citizen_speaks:
        return ConversationQuestion(answer_kind, lang)
    asked = Asked.FIRST if has("first") else Asked.LAST if has("last") else Asked.ALL
    # "How many questions have I asked?": the citizen's questions counted.
    if has("how_many") and has("asked") and (has("past") or has("so_far") or has("me")):
        return ConversationQuestion(HistoryQuestion.QUESTION_COUNT, lang)
    if not (has("what") or has("repeat") or has("remind")):
        return None
    # A value the citizen gave is in the past by itself ("какой номер я тебе давал").
    told_before = has("told") and citizen_speaks
    if (
        not (has("past") or has("repeat") or has("first") or has("last") or has("remind") or has("so_far"))
        and not told_before
    ):
        return None
    if own_words and (has("identifier") or has("value")):
        return ConversationQuestion(HistoryQuestion.VALUES, lang, identifier=has("identifier"), asked=asked)
    if own_words:
        if has("first") and has("second"):
            return ConversationQuestion(HistoryQuestion.QUESTIONS, lang)
        if has("first"):
            return ConversationQuestion(HistoryQuestion.FIRST_QUESTION, lang)
        if has("last"):
            return ConversationQuestion(HistoryQuestion.LAST_QUESTION, lang)
        return ConversationQuestion(HistoryQuestion.QUESTIONS, lang)
    if has("said") and has("you"):
        return ConversationQuestion(answer_kind, lang, about=about)
    # "What was the price again?", "which address was that again?", "какая была цена, ещё
    # раз?": what an answer said, asked once more, is that answer.
    if has("repeat") and has("past") and not citizen_speaks:
        # The latest answer holds it ("the first holiday" of its list is still in it).
        return ConversationQuestion(HistoryQuestion.LAST_ANSWER, lang)
    if has("talked") and has("we"):
        return ConversationQuestion(HistoryQuestion.SUMMARY, lang)
    return None


_TEXTS: dict[Lang, dict[str, str]] = {
    "en": {
        "nothing": (
            "You haven't asked me anything yet in this conversation — this is your first message."
            " How can I help you?"
        ),
        "summary": "Here is what we discussed:",
        "question_count": "Questions you have asked in this conversation so far: {n}.",
        "values": "The numbers you gave me: {values}.",
        "values_asked": "You asked me about:",
        "value_item": "- “{question}” → {heading}",
        "first_answer": "Your first question was “{question}”, and I answered: “{answer}”",
        "you_asked": "You asked: “{text}”",
        "i_answered": "I answered: “{text}”",
        "last_question": "Your last question was: “{text}”",
        "first_question": "Your first question was: “{text}”",
        "questions": "You asked me:",
        "question_item": "- “{text}”",
        "last_answer": "My last answer was: “{text}”",
    },
    "et": {
        "nothing": (
            "Te pole mulle selles vestluses veel midagi küsinud – see on teie esimene sõnum. "
            "Kuidas saan aidata?"
        ),
        "summary": "Siin on see, millest me rääkisime:",
        "question_count": "Küsimusi, mis olete selles vestluses seni esitanud: {n}.",
        "values": "Numbrid, mis te mulle andsite: {values}.",
        "values_asked": "Te küsisite minult:",
        "value_item": "- „{question}“ → {heading}",
        "first_answer": "Teie esimene küsimus oli „{question}“ ja mina vastasin: „{answer}“",
        "you_asked": "Te küsisite: „{text}“",
        "i_answered": "Mina vastasin: „{text}“",
        "last_question": "Teie viimane küsimus oli: „{text}“",
        "first_question": "Teie esimene küsimus oli: „{text}“",
        "questions": "Te küsisite minult:",
        "question_item": "- „{text}“",
        "last_answer": "Minu viimane vastus oli: „{text}“",
    },
    "ru": {
        "nothing": (
            "Вы ещё ничего у меня не спрашивали в этом разговоре — это ваше первое сообщение. "
            "Чем могу помочь?"
        ),
        "summary": "Вот о чём мы говорили:",
        "question_count": "Вопросов, заданных вами в этом разговоре: {n}.",
        "values": "Номера, которые вы мне называли: {values}.",
        "values_asked": "Вы спрашивали меня:",
        "value_item": "- «{question}» → {heading}",
        "first_answer": "Ваш первый вопрос был «{question}», и я ответил: «{answer}»",
        "you_asked": "Вы спросили: «{text}»",
        "i_answered": "Я ответил: «{text}»",
        "last_question": "Ваш последний вопрос был: «{text}»",
        "first_question": "Ваш первый вопрос был: «{text}»",
        "questions": "Вы спрашивали меня:",
        "question_item": "- «{text}»",
        "last_answer": "Мой последний ответ был: «{text}»",
    },
}
MAX_QUOTE = 300
# "Repeat what you said" wants the answer itself, not its opening words.
MAX_ANSWER_QUOTE = 1500
SUMMARY_EXCHANGES = 3
QUESTIONS_LISTED = 5


def _quote(text: str, limit: int = MAX_QUOTE) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _exchanges(history: Sequence[PriorMessage]) -> list[tuple[str, str]]:
    """(question, answer) pairs, oldest first; an unanswered question has answer ""."""
    pairs: list[tuple[str, str]] = []
    for message in history:
        if message.role == "user" and message.content.strip():
            pairs.append((message.content, ""))
        elif message.role == "assistant" and pairs and not pairs[-1][1]:
            pairs[-1] = (pairs[-1][0], message.content)
    return pairs


def _heading(answer: str, *, found: bool = False) -> str:
    """What an answer was about: its first line ("Motor vehicle tax — Registration number
    123ABC, Tax year 2026"), which names the values the lookup was made with; with
    `found`, also the first thing found ("• Pärnu maakond, Pärnu linn, Ranna pst 1"): a
    question about a place or a country the citizen asked is answered by what was found."""
    lines = [line.strip() for line in answer.splitlines() if line.strip()]
    first = lines[0].rstrip(":") if lines else ""
    if found and len(lines) > 1:
        first = f"{first}: {lines[1].lstrip('•-* ')}"
    return _quote(first)


def _typed_identifiers(asked: str, answered: str) -> list[str]:
    """The identifiers the citizen typed in a question, in the form its answer read them
    ("219 mnb" → 219MNB); a value only the answer has (a postal code) is not theirs."""
    typed = re.sub(r"[\W_]+", "", asked).upper()
    read = [v.upper() for v in identifiers(_heading(answered)) if v.upper() in typed]
    return list(dict.fromkeys(read + [v.upper() for v in identifiers(asked)]))


def _chosen(exchanges: list[tuple[str, str]], asked: Asked) -> list[tuple[str, str]]:
    if asked is Asked.FIRST:
        return exchanges[:1]
    if asked is Asked.LAST:
        return exchanges[-1:]
    return exchanges[-QUESTIONS_LISTED:]


def _values_of(
    question: ConversationQuestion, exchanges: list[tuple[str, str]], texts: dict[str, str]
) -> str | None:
    """The values the citizen gave: the identifiers typed (and the forms the answers read
    them in), or for another value each question with what its answer was about. None
    when the chat holds no such value."""
    if question.identifier:
        # The first or last exchange that has one; else every recent one.
        per_exchange = [_typed_identifiers(asked, answered) for asked, answered in exchanges]
        with_values = [values for values in per_exchange if values]
        if not with_values:
            return None
        if question.asked is not Asked.ALL:
            picked = with_values[0] if question.asked is Asked.FIRST else with_values[-1]
        else:
            picked = list(dict.fromkeys(v for values in with_values[-QUESTIONS_LISTED:] for v in values))
        return texts["values"].format(values=", ".join(picked))
    chosen = _chosen(exchanges, question.asked)
    lines = [
        texts["value_item"].format(question=_quote(asked), heading=_heading(answered, found=True))
        for asked, answered in chosen
        if answered.strip()
    ]
    return "\n".join([texts["values_asked"], *lines]) if lines else None


def recap(question: ConversationQuestion, history: Sequence[PriorMessage], lang: Lang) -> str:
    """The deterministic answer: quotes from the history, in `lang`."""
    texts = _TEXTS[lang]
    if question.kind is HistoryQuestion.NAME:
        names = [n for m in history if m.role == "user" and (n := name_given(m.content))]
        return YOUR_NAME[lang].format(name=names[-1]) if names else NAME_UNKNOWN[lang]
    exchanges = _exchanges(history)
    if not exchanges:
        return texts["nothing"]
    if question.kind is HistoryQuestion.LAST_QUESTION:
        return texts["last_question"].format(text=_quote(exchanges[-1][0]))
    if question.kind is HistoryQuestion.FIRST_QUESTION:
        return texts["first_question"].format(text=_quote(exchanges[0][0]))
    if question.kind is HistoryQuestion.QUESTION_COUNT:
        return texts["question_count"].format(n=len(exchanges))
    if question.kind is HistoryQuestion.FIRST_ANSWER:
        asked, answered = exchanges[0]
        if not answered.strip():
            return texts["first_question"].format(text=_quote(asked))
        return texts["first_answer"].format(question=_quote(asked), answer=_quote(answered, MAX_ANSWER_QUOTE))
    if question.kind is HistoryQuestion.VALUES:
        if (values := _values_of(question, exchanges, texts)) is not None:
            return values
        question = ConversationQuestion(HistoryQuestion.QUESTIONS, question.language)
    if question.kind is HistoryQuestion.QUESTIONS:
        # Each question with what its answer was about ("→ Electricity exchange prices —
        # 14 Apr 2027"): the citizen's words alone seldom name the topic.
        lines = [texts["questions"]]
        lines.extend(
            texts["value_item"].format(question=_quote(asked), heading=_heading(answered))
            if answered.strip()
            else texts["question_item"].format(text=_quote(asked))
            for asked, answered in exchanges[-QUESTIONS_LISTED:]
        )
        return "\n".join(lines)
    if question.kind is HistoryQuestion.LAST_ANSWER:
        with_answers = [(q, a) for q, a in exchanges if a.strip()]
        # "What did you say about the holidays?": the latest answer on that topic.
        on_topic = [a for q, a in with_answers if _mentions(f"{q} {a}", question.about)]
        answer = (on_topic or [a for _, a in with_answers] or [""])[-1]
        return (
            texts["last_answer"].format(text=_quote(answer, MAX_ANSWER_QUOTE)) if answer else texts["nothing"]
        )
    lines = [texts["summary"]]
    for asked, answered in exchanges[-SUMMARY_EXCHANGES:]:
        lines.append("- " + texts["you_asked"].format(text=_quote(asked)))
        if answered.strip():
            lines.append("  " + texts["i_answered"].format(text=_quote(answered)))
    return "\n".join(lines)


# A topic word is found by its first letters ("holidays" in "Public holidays", "каникулы"
# in "Школьные каникулы", "koolivaheaegade" in "Koolivaheajad"): its case ending varies.
_TOPIC_HEAD = 5


def _mentions(text: str, topic: tuple[str, ...]) -> bool:
    if not topic:
        return False
    folded = fold(text)
    return any(fold(word)[:_TOPIC_HEAD] in folded for word in topic)


def _signature() -> Any:
    import dspy

    class AnswerAboutConversation(dspy.Signature):
        """Answer the user's question about this conversation using only the history.
        Quote or summarise what was asked and answered; never invent anything.
        Write in the requested language."""

        history: str = dspy.InputField(desc="the conversation so far, one 'role: text' line each")
        question: str = dspy.InputField()
        language: str = dspy.InputField()
        answer: str = dspy.OutputField()

    return AnswerAboutConversation


class DspyConversationAnswerer:
    """Blocking: run it in a worker thread."""

    def __init__(self, lm: dspy.LM) -> None:
        import dspy

        self._lm = counted(lm)
        self._predict = dspy.Predict(_signature())

    def answer(self, question: str, history: Sequence[PriorMessage], lang: Lang) -> str:
        import dspy

        lines = "\n".join(f"{m.role}: {' '.join(m.content.split())}" for m in history)
        with dspy.context(lm=self._lm):
            prediction = self._predict(history=lines, question=question, language=LANGUAGE_NAMES[lang])
        return str(prediction.answer).strip()
