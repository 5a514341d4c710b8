"""FollowUpDetectorModule (seed Part 8) for when a model is configured: DSPy
classifies how the new message relates to the last call — or, after a turn that called
several endpoints, to which of them (`about_api`; the one sharing the message's words
when the model names none). Its updated_params are checked against that endpoint's
schema (unknown keys dropped, wrong types dropped); any failure (an error, a timeout, an
answer that does not parse) falls back to the rules (`fallback`, loop_svc.follow_up), or to
NEW_INTENT without them (fail-open), never blocking the user."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from loop_svc.cache import LastCallContext
from loop_svc.extraction.llm import validated
from loop_svc.follow_up import FollowUp, FollowUpDetector, FollowUpKind, about
from services.language import Lang
from services.llm import counted

if TYPE_CHECKING:
    import dspy

log = logging.getLogger(__name__)


def _signature() -> Any:
    import dspy

    class DetectFollowUp(dspy.Signature):
        """Classify the user's new message against the previous API call(s):
        response_question (asks about the data already returned), param_update (the same
        request with different or additional parameter values; give them in updated_params
        as a JSON object) or new_intent (anything else). With several previous calls, name
        the one the message is about in about_api."""

        user_query: str = dspy.InputField()
        previous_query: str = dspy.InputField()
        previous_calls: str = dspy.InputField(
            desc="JSON list of {api_name, description, previous_params, params_schema}"
        )
        follow_up_type: str = dspy.OutputField(desc="response_question | param_update | new_intent")
        about_api: str = dspy.OutputField(desc="api_name of the call the message is about")
        updated_params: str = dspy.OutputField(desc="JSON object, {} unless param_update")

    return DetectFollowUp


class FollowUpDetectorModule:
    def __init__(self, lm: dspy.LM, fallback: FollowUpDetector | None = None) -> None:
        import dspy

        self._fallback = fallback
        self._lm = counted(lm)
        self._predict = dspy.Predict(_signature())

    def detect(self, message: str, contexts: Sequence[LastCallContext], language: Lang) -> FollowUp:
        if not contexts:
            return FollowUp(FollowUpKind.NEW_INTENT)
        try:
            import dspy

            calls = [
                {
                    "api_name": c.api_name,
                    "description": str(c.endpoint.payload.get("description", "")),
                    "previous_params": c.collected_params,
                    "params_schema": [
                        {"name": p.name, "type": p.type, "description": p.description}
                        for p in c.endpoint.params
                    ],
                }
                for c in contexts
            ]
            with dspy.context(lm=self._lm):
                prediction = self._predict(
                    user_query=message,
                    previous_query=contexts[0].original_query,
                    previous_calls=json.dumps(calls, ensure_ascii=False),
                )
            kind = FollowUpKind(str(prediction.follow_up_type).strip().lower())
        except Exception:  # fail-open: the rules decide, or nothing is a follow-up
            log.exception("follow-up detection by the model failed; the rules decide")
            if self._fallback is not None:
                return self._fallback.detect(message, contexts, language)
            return FollowUp(FollowUpKind.NEW_INTENT)
        named = str(getattr(prediction, "about_api", "") or "").strip().strip('"')
        context = next((c for c in contexts if c.api_name == named), None) or about(message, contexts)
        if kind is FollowUpKind.PARAM_UPDATE:
            updated = validated(prediction.updated_params, context.endpoint.params)
            changed = {k: v for k, v in updated.items() if context.collected_params.get(k) != v}
            if not changed:
                return FollowUp(FollowUpKind.NEW_INTENT)
            return FollowUp(kind, context, changed)
        if kind is FollowUpKind.RESPONSE_QUESTION:
            return FollowUp(kind, context)
        return FollowUp(FollowUpKind.NEW_INTENT)
