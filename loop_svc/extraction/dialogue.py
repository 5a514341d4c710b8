"""Parameter values over a whole conversation: every user message is read in
order, with what the assistant's message just before it asked for, and later
values overwrite earlier ones (corrections win).

The loop uses this for the first message of a session that arrives with a
conversation history, and bench/eval_slots.py runs SGD dialogues through it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from loop_svc.schema import ParamSpec
from services.language import Lang

# Name words too generic to say which parameter a question is about.
_GENERIC = frozenset(
    {"the", "of", "for", "and", "name", "number", "type", "is", "to", "in", "at", "id", "value", "code"}
    | {"info"}
)
_WORD = re.compile(r"[^\W\d_]+")


class Extractor(Protocol):
    def extract(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        language: Lang,
        asked: Sequence[str] = (),
        known: Mapping[str, str] | None = None,
    ) -> dict[str, str]: ...


@dataclass(frozen=True)
class Message:
    role: str
    content: str


def asked_in(text: str, params: Sequence[ParamSpec]) -> list[str]:
    """The parameters an assistant question is about: those with a distinctive
    name word in the question ("Which city?" → city_of_event). Only questions ask."""
    if "?" not in text:
        return []
    lowered = {w.lower() for w in _WORD.findall(text)}
    stems = {w[:5] for w in lowered if len(w) >= 5}
    asked = []
    for param in params:
        words = [w for w in param.words if w not in _GENERIC and len(w) >= 3]
        if any(w in lowered or (len(w) >= 5 and w[:5] in stems) for w in words):
            asked.append(param.name)
    return asked


def track(
    messages: Sequence[Message],
    params: Sequence[ParamSpec],
    extractor: Extractor,
    *,
    language: Lang,
    known: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The values the user messages state, in order, later ones winning."""
    state: dict[str, str] = dict(known or {})
    asked: list[str] = []
    for message in messages:
        if message.role == "assistant":
            asked = asked_in(message.content, params)
            continue
        if message.role != "user" or not message.content.strip():
            continue
        state.update(extractor.extract(message.content, params, language=language, asked=asked, known=state))
        asked = []
    return state
