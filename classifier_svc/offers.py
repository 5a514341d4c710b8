"""Affirmative replies to an offer: "Yes, please" after "Do you want to reserve a
table?" says nothing on its own; the intent is in the assistant's last message.

Only affirmations borrow context: a "Thanks!" after an answer must not call the
API again, so anything else is routed on its own words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from classifier_svc.candidates import PriorMessage

_AFFIRMATIVE = re.compile(
    r"^\W*(yes|yeah|yep|yup|sure|ok|okay|of course|please do|"
    r"jah|jaa|muidugi|olgu|sobib|just nii|"
    r"да|конечно|хорошо|давайте|давай)\b",
    re.IGNORECASE,
)


def is_affirmative(message: str) -> bool:
    return _AFFIRMATIVE.match(message) is not None


def with_offer(message: str, history: Sequence[PriorMessage]) -> str | None:
    """The assistant's last message followed by the reply, when the reply affirms it."""
    if not is_affirmative(message):
        return None
    offer = next(
        (m.content.strip() for m in reversed(history) if m.role == "assistant" and m.content.strip()), ""
    )
    return f"{offer} {message.strip()}" if offer else None
