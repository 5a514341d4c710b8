"""The RAG answer with an LLM: a DSPy module grounded in the numbered passages.

The model must cite the passages it used as [n]; an answer that cites none is not
grounded and is not used (the extractive answer is given instead).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from classifier_svc.passages import Passage
from services.language import LANGUAGE_NAMES, Lang

if TYPE_CHECKING:
    import dspy

_CITATION = re.compile(r"\[(\d{1,2})\]")


@dataclass(frozen=True)
class GroundedAnswer:
    text: str
    # The passages the answer cites, in citation order.
    cited: list[Passage]


def numbered_passages(passages: Sequence[Passage]) -> str:
    return "\n\n".join(
        f"[{n}] {p.title}{' — ' + p.section if p.section else ''}: {p.text}"
        for n, p in enumerate(passages, 1)
    )


def cited_passages(answer: str, passages: Sequence[Passage]) -> list[Passage]:
    cited: list[Passage] = []
    for match in _CITATION.finditer(answer):
        index = int(match.group(1)) - 1
        if 0 <= index < len(passages) and passages[index] not in cited:
            cited.append(passages[index])
    return cited


def _signature() -> Any:
    import dspy

    class AnswerFromPassages(dspy.Signature):
        """Answer a citizen's question about public services using only the numbered
        passages. Cite every passage you use as [n] right after the sentence it supports.
        If the passages do not answer the question, say that you do not know.
        Write the answer in the requested language, briefly and plainly."""

        question: str = dspy.InputField()
        passages: str = dspy.InputField(desc="numbered passages: [n] title — section: text")
        language: str = dspy.InputField(desc="language of the answer")
        answer: str = dspy.OutputField(desc="the answer with [n] citations")

    return AnswerFromPassages


class DspyRagAnswerer:
    """Blocking (DSPy calls the LM synchronously): run it in a worker thread."""

    def __init__(self, lm: dspy.LM) -> None:
        import dspy

        self._lm = lm
        self._predict = dspy.Predict(_signature())

    def answer(self, question: str, passages: Sequence[Passage], lang: Lang) -> GroundedAnswer | None:
        import dspy

        with dspy.context(lm=self._lm):
            prediction = self._predict(
                question=question, passages=numbered_passages(passages), language=LANGUAGE_NAMES[lang]
            )
        text = str(prediction.answer).strip()
        cited = cited_passages(text, passages)
        if not text or not cited:
            return None
        return GroundedAnswer(text, cited)
