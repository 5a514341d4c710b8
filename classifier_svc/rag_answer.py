"""The RAG layer's answer: grounded by an LLM when one is configured, extractive
otherwise (and whenever the LLM fails or cites nothing), always with its sources."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from classifier_svc.passages import Passage, Source, sources_of
from classifier_svc.rag_dspy import GroundedAnswer
from classifier_svc.rag_extractive import ExtractiveAnswerer
from services.language import Lang

log = logging.getLogger(__name__)


class GroundedAnswerer(Protocol):
    def answer(self, question: str, passages: Sequence[Passage], lang: Lang) -> GroundedAnswer | None: ...


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
        if not passages:
            raise ValueError("the RAG layer answers only with relevant passages")
        if self._grounded is not None:
            try:
                grounded = await asyncio.to_thread(self._grounded.answer, question, passages, lang)
            except Exception:  # an LLM outage must not cost the citizen the answer
                log.exception("grounded RAG answer failed; answering extractively")
                grounded = None
            if grounded is not None:
                return RagAnswer(grounded.text, sources_of(grounded.cited), llm_calls=1)
            llm_calls = 1
        else:
            llm_calls = 0
        extractive = self._extractive.answer(question, passages, lang)
        return RagAnswer(extractive.text, sources_of(extractive.used), llm_calls=llm_calls)
