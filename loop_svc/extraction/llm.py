"""ParamExtractionModule (seed Part 3): a DSPy step for the parameters the rules
could not fill, with the conversation history and the session language.

Only used when a model is configured (ATC_LOOP_LLM_MODEL); the rules always run
first and their values win. The model's answer is validated against the schema
(the seed's type checks); unknown keys and values of the wrong type are dropped,
so a model can neither inject parameters nor break a call. Any model failure
leaves the rules' values as they are. Every model call is counted into
End.llm_calls.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from loop_svc.schema import Concept, ParamSpec
from services.language import Lang
from services.llm import counted

if TYPE_CHECKING:
    import dspy

log = logging.getLogger(__name__)

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_LANGUAGE_NAMES: dict[Lang, str] = {"en": "English", "et": "Estonian", "ru": "Russian"}


def valid_value(param: ParamSpec, value: Any) -> str | None:
    """The value as the loop stores it, or None when it does not fit the parameter."""
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value).strip()
    if not text:
        return None
    concept = param.concept
    kind = param.type.lower()
    if param.enum:
        matches = [v for v in param.enum if v.lower() == text.lower()]
        return matches[0] if matches else None
    if concept is Concept.DATE:
        if not _ISO_DATE.match(text):
            return None
        try:
            date.fromisoformat(text)
        except ValueError:
            return None
        return text
    if concept is Concept.DATETIME:
        return text if _ISO_DATETIME.match(text) else None
    if kind == "integer" or concept in (Concept.INTEGER, Concept.YEAR):
        return text if re.fullmatch(r"-?\d+", text) else None
    if kind == "number":
        try:
            float(text)
        except ValueError:
            return None
        return text
    if kind == "boolean":
        lowered = text.lower()
        return lowered if lowered in ("true", "false") else None
    if concept is Concept.COUNTRY:
        return text.upper() if re.fullmatch(r"[A-Za-z]{2}", text) else None
    return text


def validated(raw: Any, params: Sequence[ParamSpec]) -> dict[str, str]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return {}
    if not isinstance(raw, dict):
        return {}
    by_name = {p.name: p for p in params}
    values: dict[str, str] = {}
    for key, value in raw.items():
        param = by_name.get(str(key))
        if param is None:
            continue  # unknown keys are dropped: the model cannot add parameters
        checked = valid_value(param, value)
        if checked is not None:
            values[param.name] = checked
    return values


def _schema(params: Sequence[ParamSpec]) -> str:
    return json.dumps(
        [
            {
                "name": p.name,
                "type": p.type,
                "required": p.required,
                "description": p.description,
                **({"enum": p.enum} if p.enum else {}),
            }
            for p in params
        ],
        ensure_ascii=False,
    )


def _signature() -> Any:
    import dspy

    class ExtractParams(dspy.Signature):
        """Extract API parameter values the user has stated in the message or the
        conversation. Return a JSON object {param_name: value} with only the listed
        parameters you are sure of; dates as YYYY-MM-DD, datetimes as
        YYYY-MM-DDTHH:MM:SSZ, countries as ISO 3166-1 alpha-2 codes. Omit anything unsure."""

        user_message: str = dspy.InputField()
        conversation_history: str = dspy.InputField(desc="earlier messages, oldest first")
        params_schema: str = dspy.InputField(desc="JSON list of the parameters still needed")
        known_params: str = dspy.InputField(desc="JSON of values already collected")
        today: str = dspy.InputField(desc="today's date, YYYY-MM-DD")
        session_language: str = dspy.InputField()
        extracted_params: str = dspy.OutputField(desc="JSON object")

    return ExtractParams


class ParamExtractionModule:
    """The DSPy program, run under its own LM (never a global one)."""

    def __init__(self, lm: dspy.LM) -> None:
        import dspy

        self._lm = counted(lm)
        self._predict = dspy.Predict(_signature())

    def __call__(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        history: str,
        known: Mapping[str, str],
        today: date,
        language: Lang,
    ) -> dict[str, str]:
        import dspy

        with dspy.context(lm=self._lm):
            prediction = self._predict(
                user_message=message,
                conversation_history=history,
                params_schema=_schema(params),
                known_params=json.dumps(dict(known), ensure_ascii=False),
                today=today.isoformat(),
                session_language=_LANGUAGE_NAMES[language],
            )
        return validated(prediction.extracted_params, params)
