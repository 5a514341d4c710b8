"""The RAG layer's answer: grounded by an LLM when one is configured, extractive
otherwise (and whenever the LLM fails or cites nothing), always with its sources."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from classifier_svc.passages import Passage, Source, sources_of
from classifier_svc.rag_dspy import GroundedAnswer, cited_passages
from classifier_svc.rag_extractive import ExtractiveAnswerer
from services.language import Lang

log = logging.getLogger(__name__)


class GroundedAnswerer(Protocol):
    def stream(
        self, question: str, passages: Sequence[Passage], lang: Lang
    ) -> AsyncIterator[str | GroundedAnswer | None]: ...


@dataclass(frozen=True)
class RagAnswer:
    text: str
    sources: list[Source]
    llm_calls: int = 0


class RagResponder:
    def __init__(self, extractive: ExtractiveAnswerer, grounded: GroundedAnswerer | None = None) -> None:
        self._extractive = extractive
        self._grounded = grounded

    async def answer(self, question: str, passages: Sequence[Passage], lang: Lang) -> RagAnswer:
        """The whole answer at once."""
        async for item in self.stream(question, passages, lang):
            if isinstance(item, RagAnswer):
                return item
        raise AssertionError("stream() always ends with a RagAnswer")

    async def stream(
        self, question: str, passages: Sequence[Passage], lang: Lang
    ) -> AsyncIterator[str | RagAnswer]:
        """Pieces of the answer text as they are produced, then the RagAnswer (the full
        text, its sources, the LLM calls made)."""
        if not passages:
            raise ValueError("the RAG layer answers only with relevant passages")
        llm_calls = 0
        if self._grounded is not None:
            llm_calls = 1
            streamed: list[str] = []
            grounded: GroundedAnswer | None = None
            try:
                async for item in self._grounded.stream(question, passages, lang):
                    if isinstance(item, str):
                        streamed.append(item)
                        yield item
                    else:
                        grounded = item
            except Exception:  # an LLM outage must not cost the citizen the answer
                log.exception("grounded RAG answer failed")
            if streamed:
                # Streamed text owns the turn; its sources are what it cites (or all it was given).
                text = "".join(streamed)
                cited = cited_passages(text, passages) or list(passages)
                yield RagAnswer(text, sources_of(cited), llm_calls)
                return
            if grounded is not None:
                yield grounded.text
                yield RagAnswer(grounded.text, sources_of(grounded.cited), llm_calls)
                return
        extractive = self._extractive.answer(question, passages, lang)
        yield extractive.text
        yield RagAnswer(extractive.text, sources_of(extractive.used), llm_calls)
