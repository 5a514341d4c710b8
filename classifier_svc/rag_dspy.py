"""The RAG answer with an LLM: a DSPy module grounded in the numbered passages,
streamed as the model writes it (dspy.streamify; a model that does not stream, such as
DummyLM, gives the whole answer at the end).

The model must cite the passages it used as [n]; an answer that cites none is not
grounded and is not used when nothing of it has been streamed yet.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
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
        passages. Answer exactly what is asked — each aspect of it (how long, how much,
        which documents, where, online or not, who can, what to do if lost, validity) from
        the passage that says it, not from a passage that merely shares words. Start the
        answer to a yes/no question with yes or no when the passages settle it. For an
        aspect no passage states, say plainly that the page does not say it. Cite every
        passage you use as [n] right after the sentence it supports. Write the answer in
        the requested language, briefly and plainly."""

        question: str = dspy.InputField()
        passages: str = dspy.InputField(desc="numbered passages: [n] title — section: text")
        language: str = dspy.InputField(desc="language of the answer")
        answer: str = dspy.OutputField(desc="the answer with [n] citations")

    return AnswerFromPassages


class DspyRagAnswerer:
    def __init__(self, lm: dspy.LM) -> None:
        import dspy

        self._lm = lm
        self._predict = dspy.Predict(_signature())

    async def stream(
        self, question: str, passages: Sequence[Passage], lang: Lang
    ) -> AsyncIterator[str | GroundedAnswer | None]:
        """Pieces of the answer as they come, then the GroundedAnswer (None when the
        answer is empty or cites nothing)."""
        import dspy

        # A listener keeps per-call state: one per answer.
        listener = dspy.streaming.StreamListener(signature_field_name="answer")
        program = dspy.streamify(self._predict, stream_listeners=[listener])
        text = ""
        with dspy.context(lm=self._lm):
            async for chunk in program(
                question=question, passages=numbered_passages(passages), language=LANGUAGE_NAMES[lang]
            ):
                if isinstance(chunk, dspy.streaming.StreamResponse):
                    if chunk.chunk:
                        yield chunk.chunk
                elif isinstance(chunk, dspy.Prediction):
                    text = str(chunk.answer).strip()
        cited = cited_passages(text, passages)
        yield GroundedAnswer(text, cited) if text and cited else None
