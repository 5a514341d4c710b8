"""The clarifying question written by a model, when one is configured: one short question
for everything still missing, in the citizen's language, naming each value by what it is.

The model sees each parameter's description — in the citizen's language when the
catalogue has one, else the one it has, in whatever language — its type, allowed values
and an example, never its technical name, and writes the question in the session's
language. What it writes is refused (and the deterministic question of loop_svc.questions
asked instead) when it is empty, too long, in another language, or — in an et/ru
sentence — carries a parameter's name or the English words of its name. Any failure of
the model takes the deterministic question too.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from loop_svc.schema import ParamSpec, name_words
from services.language import LANGUAGE_NAMES, Lang
from services.llm import counted

if TYPE_CHECKING:
    import dspy

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 400


class LanguageGuesser(Protocol):
    def detect(self, text: str, fallback: Lang | None = None) -> Lang: ...


def description_for(param: ParamSpec, lang: Lang) -> str:
    """The parameter's description in `lang` when the catalogue has it (`descriptions`),
    else the one it has; the words of its name when it has none."""
    text = param.descriptions.get(lang, "").strip() or param.description.strip()
    return text or " ".join(name_words(param.name))


def _wanted(missing: Sequence[ParamSpec], lang: Lang) -> str:
    return json.dumps(
        [
            {
                "what": description_for(p, lang),
                "type": p.type,
                **({"one_of": p.enum} if p.enum else {}),
            }
            for p in missing
        ],
        ensure_ascii=False,
    )


def leaks_a_name(question: str, missing: Sequence[ParamSpec], lang: Lang) -> str | None:
    """A parameter's technical name (or, in et/ru, the English words of it) in the question."""
    lowered = question.lower()
    for param in missing:
        if len(param.name) >= 3 and re.search(rf"(?<!\w){re.escape(param.name.lower())}(?!\w)", lowered):
            return param.name
        if lang in ("et", "ru"):
            words = " ".join(name_words(param.name)).lower()
            if len(words) >= 3 and re.search(rf"(?<!\w){re.escape(words)}(?!\w)", lowered):
                return words
    return None


def _signature() -> Any:
    import dspy

    class WriteClarifyingQuestion(dspy.Signature):
        """Write one short, polite question asking a citizen for the values still missing
        to answer their request, in the requested language only. Name each value by what it
        is, in ordinary words of that language taken from its description (translate the
        description when it is in another language); never use a technical or English field
        name in an Estonian or Russian sentence. Give the expected form or an example when
        the description has one, and the allowed values when there are few. One or two
        sentences, no greeting, no promise of an answer."""

        request: str = dspy.InputField(desc="the citizen's request so far")
        missing_values: str = dspy.InputField(desc="JSON list of {what, type, one_of?}")
        language: str = dspy.InputField(desc="the language of the question")
        question: str = dspy.OutputField()

    return WriteClarifyingQuestion


class DspyQuestionWriter:
    def __init__(self, lm: dspy.LM, detector: LanguageGuesser | None = None) -> None:
        import dspy

        self._lm = counted(lm)
        self._detector = detector
        self._predict = dspy.Predict(_signature())

    async def write(self, missing: Sequence[ParamSpec], lang: Lang, request: str, fallback: str) -> str:
        """The model's question, or `fallback` (the deterministic one) when it fails or its
        question is refused."""
        if not missing:
            return fallback
        import dspy

        try:
            with dspy.context(lm=self._lm):
                prediction = await self._predict.acall(
                    request=request, missing_values=_wanted(missing, lang), language=LANGUAGE_NAMES[lang]
                )
            question = " ".join(str(prediction.question).split())
        except Exception:  # the model is optional: the deterministic question is asked
            log.warning("the clarifying question by the model failed; the template is used", exc_info=True)
            return fallback
        why = self._refused(question, missing, lang)
        if why:
            log.warning("the model's clarifying question was refused (%s); the template is used", why)
            return fallback
        return question

    def _refused(self, question: str, missing: Sequence[ParamSpec], lang: Lang) -> str:
        if not question:
            return "empty"
        if len(question) > MAX_QUESTION_CHARS:
            return "too long"
        if (name := leaks_a_name(question, missing, lang)) is not None:
            return f"names the parameter {name!r}"
        if self._detector is not None and self._detector.detect(question, fallback=lang) != lang:
            return "in another language"
        return ""
