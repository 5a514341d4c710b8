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
    r"^\W*(yes|yeah|yep|yup|sure|ok|okay|of course|please do|please|go ahead|absolutely|definitely|"
    r"certainly|sounds (good|great)|(that|it) (would|will) be (great|nice|good|perfect|helpful)|"
    r"that'?d be (great|nice|good|perfect)|great|perfect|"
    r"jah|jaa|jep|muidugi|olgu|sobib|just nii|kindlasti|palun|see oleks (tore|hea|super)|oleks tore|"
    r"да|ага|конечно|хорошо|давайте|давай|пожалуйста|отлично|было бы (здорово|отлично|хорошо))\b",
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


# An affirmation followed by this many words of its own says what it wants by itself
# ("Yes, I also need a bus to Fresno on the 5th").
SELF_CONTAINED_WORDS = 4
_WORDS = re.compile(r"[^\W\d_]{2,}", re.UNICODE)


def says_more_than_yes(message: str) -> bool:
    match = _AFFIRMATIVE.match(message)
    rest = message[match.end() :] if match else message
    return len(_WORDS.findall(rest)) >= SELF_CONTAINED_WORDS
