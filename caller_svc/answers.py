"""Who writes the answer: the deterministic formatter (default, no model) or the
DSPy formatter modules when a model is configured. Either way the whole text is
returned at once, so the output guardrails see it before anything is streamed."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from caller_svc.formatter import DeterministicFormatter, ResultToFormat
from services.language import Lang

log = logging.getLogger("atc.caller.answers")


@dataclass(frozen=True)
class WrittenAnswer:
    text: str
    llm_calls: int = 0


class AnswerWriter(Protocol):
    async def write(
        self,
        results: Sequence[ResultToFormat],
        *,
        question: str,
        lang: Lang,
        stored: Sequence[tuple[str | None, str]],
        owner_id: str,
    ) -> WrittenAnswer: ...


class DeterministicAnswers:
    def __init__(self, formatter: DeterministicFormatter) -> None:
        self._formatter = formatter

    async def write(
        self,
        results: Sequence[ResultToFormat],
        *,
        question: str,
        lang: Lang,
        stored: Sequence[tuple[str | None, str]],
        owner_id: str,
    ) -> WrittenAnswer:
        return WrittenAnswer(self._formatter.format(results, lang))
