"""ShapeModule: with a model configured, DSPy reads the question's shape as the JSON
form of atc.caller.v1.AnswerShape; the answer is parsed into the same types the rules
produce (unknown fields dropped, a malformed answer refused), and any failure — or a
model that sees less than the rules — falls back to the rules (loop_svc.shapes)."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from loop_svc.shapes import ShapeReader
from services import answer_shape
from services.answer_shape import AnswerShape
from services.language import Lang

if TYPE_CHECKING:
    import dspy

log = logging.getLogger(__name__)

_FORMAT = {
    "kind": "ANSWER_KIND_LIST | _YES_NO | _COUNT | _EXTREME | _AGGREGATE | _FIELDS | _FULL_LIST",
    "filters": [
        {"weekdays": {"days": [1]}},
        {"months": {"months": [12]}},
        {"dates": {"start": "YYYY-MM-DD", "end": "YYYY-MM-DD"}},
        {"hours": {"fromHour": 18, "toHour": 22}},
        {"comparison": {"op": "COMPARISON_LESS", "value": 35, "terms": ["price"]}},
        {"text": {"words": ["christmas"]}},
    ],
    "selection": {"order": "SELECTION_ORDER_LATEST", "count": 3, "terms": [], "skip": 0},
    "aggregation": {"function": "AGGREGATE_FUNCTION_AVERAGE", "terms": []},
    "terms": ["words of the question that name fields or items"],
}


def _signature() -> Any:
    import dspy

    class ReadAnswerShape(dspy.Signature):
        """Read what the question asks of an API result: yes/no, an exact count and from
        which end, an extreme, an aggregate, a time-of-day window in local hours, the
        fields asked for, every row, and filters by weekday (ISO 1-7), month, local date
        range or a number. Answer with one JSON object in the given format; leave out
        what the question does not ask."""

        question: str = dspy.InputField()
        language: str = dspy.InputField()
        today: str = dspy.InputField(desc="YYYY-MM-DD in the citizen's time zone")
        shape_format: str = dspy.InputField(desc="JSON")
        shape: str = dspy.OutputField(desc="JSON object")

    return ReadAnswerShape


class ShapeModule:
    def __init__(self, lm: dspy.LM, fallback: ShapeReader, today: Any) -> None:
        import dspy

        self._lm = lm
        self._fallback = fallback
        self._today = today
        self._predict = dspy.Predict(_signature())
        self.calls = 0

    def read(self, message: str, language: Lang) -> AnswerShape:
        rules = self._fallback.read(message, language)
        try:
            import dspy

            with dspy.context(lm=self._lm):
                self.calls += 1
                prediction = self._predict(
                    question=message,
                    language=language,
                    today=self._today().isoformat(),
                    shape_format=json.dumps(_FORMAT),
                )
            raw = json.loads(str(prediction.shape))
            if not isinstance(raw, dict):
                raise ValueError("the shape is no JSON object")
            read = answer_shape.from_dict(raw)
        except Exception:  # fall back to the rules, never fail a turn
            log.exception("reading the question's shape by the model failed; using the rules")
            return rules
        if read.is_plain and not rules.is_plain:
            return rules  # the model saw less than the rules
        return AnswerShape(
            kind=read.kind,
            filters=read.filters,
            selection=read.selection,
            aggregation=read.aggregation,
            terms=read.terms or rules.terms,
            question=rules.question,
        )
