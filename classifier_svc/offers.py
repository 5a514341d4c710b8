"""Affirmative replies to an offer: "Yes, please" after "Do you want to reserve a
table?" says nothing on its own; the intent is in the assistant's last message.

Only an affirmation of an offer borrows context: the assistant's last message must
ask something (a question mark, or "do you want / would you like / should I …"), and
the reply must start with a yes. "OK" after an answer, or "Thanks!", must not call
the API again, so anything else is routed on its own words.
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


_OFFER = re.compile(
    r"\?\s*$|\b(do you want|would you like|should i|shall i|want me to|"
    r"kas soovite|kas soovid|kas ma|хотите|желаете)\b",
    re.IGNORECASE,
)


def is_affirmative(message: str) -> bool:
    return _AFFIRMATIVE.match(message) is not None


def is_offer(text: str) -> bool:
    return _OFFER.search(text) is not None


def with_offer(message: str, history: Sequence[PriorMessage]) -> str | None:
    """The assistant's last message followed by the reply, when the reply affirms it."""
    if not is_affirmative(message):
        return None
    offer = next(
        (m.content.strip() for m in reversed(history) if m.role == "assistant" and m.content.strip()), ""
    )
    return f"{offer} {message.strip()}" if offer and is_offer(offer) else None
