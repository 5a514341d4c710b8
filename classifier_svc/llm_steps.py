"""The classifier's LLM steps (DSPy), used only when a model is configured.

- EndpointDisambiguator (seed API_TOOL_CALLING.md Part 2): picks the endpoint a message
  asks for among close candidates, or "none".
- IntentDecomposer (seed Part 7 Phase 1): "single" or "parallel" with focused sub-queries.

Both raise on any failure; the matcher counts the call and falls back to its
deterministic path (classifier_svc/api_tool.py). dspy is imported only when used.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from classifier_svc.candidates import Candidate
from services.llm import counted

if TYPE_CHECKING:
    import dspy


def _candidate_json(candidates: Sequence[Candidate]) -> str:
    return json.dumps(
        [
            {
                "endpoint_id": c.endpoint_id,
                "name": c.name,
                "description": str(getattr(c.endpoint, "description", "") or ""),
                "score": round(c.prototype_cosine if c.has_prototype else c.description_cosine, 4),
            }
            for c in candidates
        ],
        ensure_ascii=False,
    )


class DspyEndpointDisambiguator:
    def __init__(self, lm: dspy.LM | Any) -> None:
        self._lm = counted(lm)
        self._program: Any = None

    async def choose(self, message: str, candidates: Sequence[Candidate]) -> Candidate | None:
        import dspy

        if self._program is None:
            self._program = dspy.Predict(_disambiguation_signature())
        with dspy.context(lm=self._lm):
            result = await self._program.acall(user_query=message, candidates=_candidate_json(candidates))
        chosen = str(getattr(result, "best_endpoint_id", "") or "").strip().strip('"')
        if not chosen or chosen.lower() == "none":
            return None
        for candidate in candidates:
            if chosen in (candidate.endpoint_id, candidate.name):
                return candidate
        raise ValueError(f"the disambiguator chose {chosen!r}, which is not a candidate")


class DspyIntentDecomposer:
    def __init__(self, lm: dspy.LM | Any) -> None:
        self._lm = counted(lm)
        self._program: Any = None

    async def decompose(self, message: str, max_parts: int) -> list[str]:
        import dspy

        if self._program is None:
            self._program = dspy.Predict(_decomposition_signature())
        with dspy.context(lm=self._lm):
            result = await self._program.acall(user_query=message, max_sub_queries=max_parts)
        mode = str(getattr(result, "mode", "") or "").strip().lower()
        if mode != "parallel":
            return []
        parts = [str(p).strip() for p in (getattr(result, "sub_queries", None) or []) if str(p).strip()]
        # Conservative: fewer than two focused parts is one intent.
        return parts[:max_parts] if len(parts) >= 2 else []


def _disambiguation_signature() -> Any:
    import dspy

    class EndpointDisambiguation(dspy.Signature):
        """Pick the one API endpoint that answers the user's message (Estonian, Russian or
        English). Answer with its endpoint_id, or "none" when no candidate fits."""

        user_query: str = dspy.InputField()
        candidates: str = dspy.InputField(desc="JSON list of {endpoint_id, name, description, score}")
        best_endpoint_id: str = dspy.OutputField(desc='an endpoint_id from the candidates, or "none"')

    return EndpointDisambiguation


def _decomposition_signature() -> Any:
    import dspy

    class IntentDecomposition(dspy.Signature):
        """Does the user's message (Estonian, Russian or English) ask for several different
        things? If yes, mode is "parallel" and sub_queries are self-contained questions, one
        per intent, in the message's language. Otherwise mode is "single" and sub_queries is
        empty. When unsure, answer "single"."""

        user_query: str = dspy.InputField()
        max_sub_queries: int = dspy.InputField()
        mode: str = dspy.OutputField(desc='"single" or "parallel"')
        sub_queries: list[str] = dspy.OutputField()

    return IntentDecomposition
