"""How a new message relates to the chat's last API call (seed Part 8,
FollowUpDetectorModule), decided by rules when no LLM is configured:

- a question about the listed items ("Which of those…", "Millised neist…", "Какие из
  них…") → RESPONSE_QUESTION: answered from the stored response, no API call;
- a short or "and/same for/what about" message that gives a new value for a
  parameter of the last call ("And in Finland?", "Same for Latvia?", "A mis homme?",
  "А в Латвии?") → PARAM_UPDATE with the changed values;
- anything else → NEW_INTENT.

`answer_data` narrows a stored response to the items the question names (a field
value such as "Bank" or "Christmas", or a month), so the formatter answers from them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from loop_svc.cache import LastCallContext
from loop_svc.extraction.dates import month_of
from loop_svc.extraction.text import stem, words
from loop_svc.loop import ParamExtractor
from loop_svc.schema import ParamSpec
from services.language import Lang


class FollowUpKind(StrEnum):
    NEW_INTENT = "new_intent"
    RESPONSE_QUESTION = "response_question"
    PARAM_UPDATE = "param_update"


@dataclass(frozen=True)
class FollowUp:
    kind: FollowUpKind
    context: LastCallContext | None = None
    updated_params: dict[str, str] = field(default_factory=dict)


class FollowUpDetector(Protocol):
    def detect(self, message: str, contexts: Sequence[LastCallContext], language: Lang) -> FollowUp: ...


_ABOUT_RESULT = re.compile(
    r"\b(?:which|what|how many|when|is|are)\b.*\b(?:of (?:those|these|them)|among (?:those|them)|"
    r"those|these|them|the list|that list|one of)\b"
    r"|\b(?:neist|nendest|nende seast|millised neist|mis neist|kumb|loetelus|seal hulgas)\b"
    r"|(?:из них|из этих|среди них|какой из|какие из|которы\w+ из|в этом списке)",
    re.I,
)
_FOLLOW_CUE = re.compile(
    r"^\W*(?:and|also|same|what about|how about|now|then|ok(?:ay)?,? (?:and|now)|aga|ja|a|ka|sama|"
    r"kuidas on|а|и|тоже|также|то же|а как|теперь)\b",
    re.I,
)
_SHORT_WORDS = 5


class RuleFollowUpDetector:
    def __init__(self, extractor: ParamExtractor) -> None:
        self._extractor = extractor

    def detect(self, message: str, contexts: Sequence[LastCallContext], language: Lang) -> FollowUp:
        text = message.strip()
        if not text or not contexts:
            return FollowUp(FollowUpKind.NEW_INTENT)
        if _ABOUT_RESULT.search(text):
            return FollowUp(FollowUpKind.RESPONSE_QUESTION, contexts[0])
        if not (_FOLLOW_CUE.search(text) or len(words(text)) <= _SHORT_WORDS):
            return FollowUp(FollowUpKind.NEW_INTENT)
        for context in contexts:
            params: list[ParamSpec] = context.endpoint.params
            found = self._extractor.extract(text, params, language=language, known=context.collected_params)
            changed = {k: v for k, v in found.items() if context.collected_params.get(k) != v}
            if changed:
                return FollowUp(FollowUpKind.PARAM_UPDATE, context, changed)
        return FollowUp(FollowUpKind.NEW_INTENT)


_STOP = frozenset(
    """which what how many when is are was were of those these them the a an one ones in on at to for
    from and or that list there any holiday holidays day days neist nendest millised milline mis on
    kas kumb see need из них какие какой которые который это в на и есть ли""".split()
)


def _items(data: Any) -> tuple[list[Any], str | None]:
    """The list in a response, and the key it sits under (None for a top-level list)."""
    if isinstance(data, list):
        return data, None
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                return value, key
    return [], None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def answer_data(data: Any, question: str, language: Lang) -> Any:
    """The stored response narrowed to the items the question names; unchanged when
    it names none of them (the formatter then answers from the whole list)."""
    items, key = _items(data)
    if not items:
        return data
    tokens = [t for t in words(question) if t.lower not in _STOP and len(t.lower) > 2]
    months = {m for m in (month_of(t.text) for t in tokens) if m is not None}
    stems = {stem(t.text, language) for t in tokens}

    def matches(item: Any) -> bool:
        texts = _strings(item)
        item_stems = {stem(w.text, lang) for s in texts for w in words(s) for lang in ("en", "et", "ru")}
        if stems & item_stems:
            return True
        return any(re.match(rf"\d{{4}}-{m:02d}-", s) for s in texts for m in months)

    kept = [item for item in items if matches(item)]
    if not kept or len(kept) == len(items):
        return data
    if key is None:
        return kept
    return {**data, key: kept}
