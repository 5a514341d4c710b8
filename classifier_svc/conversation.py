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
from classifier_svc.lexicon import Concept, Found, Lexicon
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
    LAST_ANSWER = "last_answer"


# Questions about what the citizen said (not about the assistant's answers).
CITIZENS_WORDS = frozenset(
    {HistoryQuestion.QUESTIONS, HistoryQuestion.FIRST_QUESTION, HistoryQuestion.LAST_QUESTION}
)


@dataclass(frozen=True)
class ConversationQuestion:
    kind: HistoryQuestion
    language: Lang


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
        "küsisin, küsisime, küsinud, küsin, küsimus, küsimused, küsimuse, sõnum, sõnumi, sõnumit",
        "спрашивал, спрашивала, спросил, спросила, спрашивали, вопрос, вопросы, сообщение, сообщения",
    ),
    # What a citizen does with a value: gives, names, mentions it ("what plate did I give
    # you?", "какой номер я тебе называл?"). Whose words they are, the subject tells.
    "told": (
        "gave, give, given, mentioned, mention, named, told, tell, said, say, typed, wrote, entered, sent"
        ", provided",
        "andsin, mainisin, nimetasin, ütlesin, kirjutasin, sisestasin, saatsin, andnud, maininud",
        "называл, назвал, называла, назвала, говорил, говорила, сказал, сказала, писал, написал, писала"
        ", написала, давал, дал, давала, дала, упоминал, упомянул, указал, указывал, вводил, ввел, ввёл",
    ),
    "me": ("i, me, my", "ma, mina, mu, minu", "я, мой, мои, моя, меня"),
    "you": (
        "you, u, your",
        "sa, sina, te, teie, su, sinu, sult, sinult, teilt, sulle, teile",
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
        "küsisin, küsisime, küsinud, oli, olid, rääkisime, vastasid, vastasite, ütlesid, ütlesite, viimati",
        "спрашивал, спрашивала, спросил, спросила, был, была, было, сказал, сказали, ответил, ответили"
        ", говорили",
    ),
    "so_far": (
        "so far, until now, today, here",
        "seni, siiani, praeguseni, täna, siin",
        "до этого, пока, уже, сегодня, здесь, тут",
    ),
    # How the recap is asked for ("make a short summary", "самый первый"): no topic.
    "manner": (
        "please, short, brief, briefly, quick, quickly, make, give me, very, again",
        "palun, lühike, lühidalt, lühikese, tee, anna, kõige, olen, oled",
        "пожалуйста, коротко, кратко, покороче, сделай, дай, самый, мне",
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


def classify_history_question(message: str) -> ConversationQuestion | None:
    """A question about the conversation itself, or None. It must be one as a whole:
    at most a word or two beyond the classes above and function words, no numbers."""
    text = " ".join(message.strip().split())
    if not text or _DIGIT.search(text):
        return None
    found = _LEXICON.find(text)
    # Politeness and manner ("please give me a short …") do not make a question longer.
    manner = sum(len(found.positions.get(f"manner_{lang}", ())) for lang in _LANGS)
    if not found.words or found.words - manner > MAX_WORDS:
        return None
    has = lambda name: bool(_langs(found, name))  # noqa: E731
    i_at, you_at = _first_at(found, "i_subject"), _first_at(found, "you_subject")
    citizen_speaks = i_at is not None and (you_at is None or i_at < you_at)
    # The citizen's own words: their questions or messages, or a value they gave.
    own_words = (has("asked") and has("me")) or (has("told") and citizen_speaks)
    extra = [t for t in found.uncovered() if t not in STOPWORDS]
    if len(extra) > (MAX_EXTRA_OWN_WORDS if own_words else MAX_EXTRA):
        return None
    votes = [name.rsplit("_", 1)[-1] for name in found.positions if not name.startswith("manner")]
    lang: Lang = max(_LANGS, key=lambda lg: (votes.count(lg), lg == "en"))
    if has("summary") and (has("talked") or has("we") or own_words):
        return ConversationQuestion(HistoryQuestion.SUMMARY, lang)
    if has("repeat") and (has("said") or has("you") or has("last")) and not citizen_speaks:
        return ConversationQuestion(HistoryQuestion.LAST_ANSWER, lang)
    if not (has("what") or has("repeat") or has("remind")):
        return None
    # A value the citizen gave is in the past by itself ("какой номер я тебе давал").
    told_before = has("told") and citizen_speaks
    if (
        not (has("past") or has("repeat") or has("first") or has("last") or has("remind") or has("so_far"))
        and not told_before
    ):
        return None
    if own_words:
        if has("first"):
            return ConversationQuestion(HistoryQuestion.FIRST_QUESTION, lang)
        if has("last"):
            return ConversationQuestion(HistoryQuestion.LAST_QUESTION, lang)
        return ConversationQuestion(HistoryQuestion.QUESTIONS, lang)
    if has("said") and has("you"):
        return ConversationQuestion(HistoryQuestion.LAST_ANSWER, lang)
    if has("talked") and has("we"):
        return ConversationQuestion(HistoryQuestion.SUMMARY, lang)
    return None


_TEXTS: dict[Lang, dict[str, str]] = {
    "en": {
        "nothing": "We have not discussed anything yet in this conversation. How can I help you?",
        "summary": "Here is what we discussed:",
        "you_asked": "You asked: “{text}”",
        "i_answered": "I answered: “{text}”",
        "last_question": "Your last question was: “{text}”",
        "first_question": "Your first question was: “{text}”",
        "questions": "You asked me:",
        "question_item": "- “{text}”",
        "last_answer": "My last answer was: “{text}”",
    },
    "et": {
        "nothing": "Me pole selles vestluses veel millestki rääkinud. Kuidas saan aidata?",
        "summary": "Siin on see, millest me rääkisime:",
        "you_asked": "Te küsisite: „{text}“",
        "i_answered": "Mina vastasin: „{text}“",
        "last_question": "Teie viimane küsimus oli: „{text}“",
        "first_question": "Teie esimene küsimus oli: „{text}“",
        "questions": "Te küsisite minult:",
        "question_item": "- „{text}“",
        "last_answer": "Minu viimane vastus oli: „{text}“",
    },
    "ru": {
        "nothing": "В этом разговоре мы ещё ничего не обсуждали. Чем могу помочь?",
        "summary": "Вот о чём мы говорили:",
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


def recap(question: ConversationQuestion, history: Sequence[PriorMessage], lang: Lang) -> str:
    """The deterministic answer: quotes from the history, in `lang`."""
    texts = _TEXTS[lang]
    exchanges = _exchanges(history)
    if not exchanges:
        return texts["nothing"]
    if question.kind is HistoryQuestion.LAST_QUESTION:
        return texts["last_question"].format(text=_quote(exchanges[-1][0]))
    if question.kind is HistoryQuestion.FIRST_QUESTION:
        return texts["first_question"].format(text=_quote(exchanges[0][0]))
    if question.kind is HistoryQuestion.QUESTIONS:
        lines = [texts["questions"]]
        lines.extend(
            texts["question_item"].format(text=_quote(asked)) for asked, _ in exchanges[-QUESTIONS_LISTED:]
        )
        return "\n".join(lines)
    if question.kind is HistoryQuestion.LAST_ANSWER:
        answer = next((a for _, a in reversed(exchanges) if a.strip()), "")
        return (
            texts["last_answer"].format(text=_quote(answer, MAX_ANSWER_QUOTE)) if answer else texts["nothing"]
        )
    lines = [texts["summary"]]
    for asked, answered in exchanges[-SUMMARY_EXCHANGES:]:
        lines.append("- " + texts["you_asked"].format(text=_quote(asked)))
        if answered.strip():
            lines.append("  " + texts["i_answered"].format(text=_quote(answered)))
    return "\n".join(lines)


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
