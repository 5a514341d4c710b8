"""FollowUpDetectorModule (seed Part 8) for when a model is configured: DSPy
classifies how the new message relates to the last call. Its updated_params are
checked against the endpoint's schema (unknown keys dropped, wrong types dropped);
any failure falls back to NEW_INTENT (fail-open), never blocking the user."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from loop_svc.cache import LastCallContext
from loop_svc.extraction.llm import validated
from loop_svc.follow_up import FollowUp, FollowUpKind
from services.language import Lang

if TYPE_CHECKING:
    import dspy

log = logging.getLogger(__name__)


def _signature() -> Any:
    import dspy

    class DetectFollowUp(dspy.Signature):
        """Classify the user's new message against the previous API call:
        response_question (asks about the data already returned), param_update (the same
        request with different or additional parameter values; give them in updated_params
        as a JSON object) or new_intent (anything else)."""

        user_query: str = dspy.InputField()
        previous_query: str = dspy.InputField()
        previous_params: str = dspy.InputField(desc="JSON")
        params_schema: str = dspy.InputField(desc="JSON")
        follow_up_type: str = dspy.OutputField(desc="response_question | param_update | new_intent")
        updated_params: str = dspy.OutputField(desc="JSON object, {} unless param_update")

    return DetectFollowUp


class FollowUpDetectorModule:
    def __init__(self, lm: dspy.LM) -> None:
        import dspy

        self._lm = lm
        self._predict = dspy.Predict(_signature())

    def detect(self, message: str, contexts: Sequence[LastCallContext], language: Lang) -> FollowUp:
        if not contexts:
            return FollowUp(FollowUpKind.NEW_INTENT)
        context = contexts[0]
        try:
            import dspy

            params = context.endpoint.params
            schema = [{"name": p.name, "type": p.type, "description": p.description} for p in params]
            with dspy.context(lm=self._lm):
                prediction = self._predict(
                    user_query=message,
                    previous_query=context.original_query,
                    previous_params=json.dumps(context.collected_params, ensure_ascii=False),
                    params_schema=json.dumps(schema, ensure_ascii=False),
                )
            kind = FollowUpKind(str(prediction.follow_up_type).strip().lower())
        except Exception:  # fail-open
            log.exception("follow-up detection by the model failed; treating as a new intent")
            return FollowUp(FollowUpKind.NEW_INTENT)
        if kind is FollowUpKind.PARAM_UPDATE:
            updated = validated(prediction.updated_params, context.endpoint.params)
            changed = {k: v for k, v in updated.items() if context.collected_params.get(k) != v}
            if not changed:
                return FollowUp(FollowUpKind.NEW_INTENT)
            return FollowUp(kind, context, changed)
        if kind is FollowUpKind.RESPONSE_QUESTION:
            return FollowUp(kind, context)
        return FollowUp(FollowUpKind.NEW_INTENT)
