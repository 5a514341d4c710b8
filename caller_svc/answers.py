"""Who writes the answer: the deterministic formatter (default, no model) or the
DSPy formatter modules when a model is configured.

`stream` yields what may go out as it is written: a model's pieces for a one-result
answer (checked sentence by sentence before they leave, caller_svc/answer_stream.py),
then the WrittenAnswer. A deterministic or multi-result answer comes whole, as the
WrittenAnswer only, and is checked whole before any of it is sent."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Protocol

from caller_svc.formatter import DeterministicFormatter, ResultToFormat
from caller_svc.units import with_per_kwh
from services.language import Lang

log = logging.getLogger("atc.caller.answers")


@dataclass(frozen=True)
class WrittenAnswer:
    text: str
    llm_calls: int = 0
    # The text went out already, piece by piece, as the model wrote it.
    streamed: bool = False
    # The model failed; `text` is the deterministic answer.
    failed: bool = False
    # The model failed after some of its pieces had been streamed.
    partial: bool = False


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

    def stream(
        self,
        results: Sequence[ResultToFormat],
        *,
        question: str,
        lang: Lang,
        stored: Sequence[tuple[str | None, str]],
        owner_id: str,
    ) -> AsyncGenerator[str | WrittenAnswer, None]: ...


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
        return WrittenAnswer(with_per_kwh(self._formatter.format(results, lang), question, lang))

    async def stream(
        self,
        results: Sequence[ResultToFormat],
        *,
        question: str,
        lang: Lang,
        stored: Sequence[tuple[str | None, str]],
        owner_id: str,
    ) -> AsyncGenerator[str | WrittenAnswer, None]:
        yield WrittenAnswer(with_per_kwh(self._formatter.format(results, lang), question, lang))
