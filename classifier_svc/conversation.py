"""Questions about the conversation itself ("What did we talk about?", "Mida ma
küsisin?", "Что вы ответили?"), answered from the history the GUI sends.

Rules recognise the question (whole-message patterns in en/et/ru); the answer is a
plain recap of the last question(s) and answer. With an LLM configured, a DSPy module
answers from the history instead (see ConversationAnswerer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from classifier_svc.candidates import PriorMessage
from services.language import LANGUAGE_NAMES, Lang

if TYPE_CHECKING:
    import dspy


class HistoryQuestion(StrEnum):
    SUMMARY = "summary"
    LAST_QUESTION = "last_question"
    LAST_ANSWER = "last_answer"


@dataclass(frozen=True)
class ConversationQuestion:
    kind: HistoryQuestion
    language: Lang


_END = r"\s*[?!.]*\s*$"
_PATTERNS: list[tuple[HistoryQuestion, Lang, str]] = [
    (
        HistoryQuestion.SUMMARY,
        "en",
        r"^(what (did|have) we ((talk(ed)?|speak|spoken|chat(ted)?) about|discuss(ed)?)( so far)?"
        r"|what have we discussed( so far)?"
        r"|(can you )?(summari[sz]e|recap) (our|the|this) (conversation|chat)( so far)?)",
    ),
    (
        HistoryQuestion.LAST_QUESTION,
        "en",
        r"^(what (was|were) my (last|previous|first) questions?|what did i (just )?ask( you)?( before)?)",
    ),
    (
        HistoryQuestion.LAST_ANSWER,
        "en",
        r"^(what did you (just )?(say|answer|tell me)( before)?|what was your (last|previous) answer"
        r"|(can you )?repeat (that|your (last )?answer)( please)?)",
    ),
    (
        HistoryQuestion.SUMMARY,
        "et",
        r"^(millest me (rääkisime|vestlesime|oleme rääkinud)( seni)?|mida me (arutasime|rääkisime)"
        r"|(tee )?kokkuvõte (meie )?vestlusest)",
    ),
    (
        HistoryQuestion.LAST_QUESTION,
        "et",
        r"^(mida ma (enne |just |viimati )?küsisin|mis oli (mu|minu) (eelmine|viimane|esimene) küsimus)",
    ),
    (
        HistoryQuestion.LAST_ANSWER,
        "et",
        r"^(mida sa (enne |just )?(vastasid|ütlesid)|mida te (enne |just )?(vastasite|ütlesite)"
        r"|mis oli (su|sinu|teie) (eelmine|viimane) vastus|korda (oma )?(viimast )?vastust)",
    ),
    (
        HistoryQuestion.SUMMARY,
        "ru",
        r"^(о ч[её]м мы (говорили|разговаривали|беседовали)( до этого)?|подведи(те)? итог( разговора)?)",
    ),
    (
        HistoryQuestion.LAST_QUESTION,
        "ru",
        r"^(что я (только что |раньше )?(спрашивал|спросил|спрашивала|спросила)"
        r"|какой (был )?мой (последний|предыдущий|первый) вопрос)",
    ),
    (
        HistoryQuestion.LAST_ANSWER,
        "ru",
        r"^(что (ты|вы) (только что |мне )?(сказал|сказали|ответил|ответили)"
        r"|повтори(те)? (свой |ваш )?(последний )?ответ)",
    ),
]
_COMPILED = [(kind, lang, re.compile(pattern + _END, re.IGNORECASE)) for kind, lang, pattern in _PATTERNS]


def classify_history_question(message: str) -> ConversationQuestion | None:
    text = " ".join(message.strip().split())
    for kind, lang, pattern in _COMPILED:
        if pattern.match(text):
            return ConversationQuestion(kind, lang)
    return None


_TEXTS: dict[Lang, dict[str, str]] = {
    "en": {
        "nothing": "We have not discussed anything yet in this conversation. How can I help you?",
        "summary": "Here is what we discussed:",
        "you_asked": "You asked: “{text}”",
        "i_answered": "I answered: “{text}”",
        "last_question": "Your last question was: “{text}”",
        "last_answer": "My last answer was: “{text}”",
    },
    "et": {
        "nothing": "Me pole selles vestluses veel millestki rääkinud. Kuidas saan aidata?",
        "summary": "Siin on see, millest me rääkisime:",
        "you_asked": "Te küsisite: „{text}“",
        "i_answered": "Mina vastasin: „{text}“",
        "last_question": "Teie viimane küsimus oli: „{text}“",
        "last_answer": "Minu viimane vastus oli: „{text}“",
    },
    "ru": {
        "nothing": "В этом разговоре мы ещё ничего не обсуждали. Чем могу помочь?",
        "summary": "Вот о чём мы говорили:",
        "you_asked": "Вы спросили: «{text}»",
        "i_answered": "Я ответил: «{text}»",
        "last_question": "Ваш последний вопрос был: «{text}»",
        "last_answer": "Мой последний ответ был: «{text}»",
    },
}
MAX_QUOTE = 300
SUMMARY_EXCHANGES = 3


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1].rstrip() + "…"


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
    if question.kind is HistoryQuestion.LAST_ANSWER:
        answer = next((a for _, a in reversed(exchanges) if a.strip()), "")
        return texts["last_answer"].format(text=_quote(answer)) if answer else texts["nothing"]
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

        self._lm = lm
        self._predict = dspy.Predict(_signature())

    def answer(self, question: str, history: Sequence[PriorMessage], lang: Lang) -> str:
        import dspy

        lines = "\n".join(f"{m.role}: {' '.join(m.content.split())}" for m in history)
        with dspy.context(lm=self._lm):
            prediction = self._predict(history=lines, question=question, language=LANGUAGE_NAMES[lang])
        return str(prediction.answer).strip()
