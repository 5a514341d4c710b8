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


# Words of a clause that only accepts what was shown: "That works for me", "Sounds
# great", "Perfect", "See sobib mulle", "Это подходит".
_ACCEPTANCE_WORDS = frozenset(
    """
    that this it its it's that's thats one sounds sound looks seems is will would be do works work
    suits for me to us great good perfect fine nice cool awesome wonderful excellent fantastic super
    lovely amazing ok okay alright right yes yeah yep sure oh well very really so much thanks thank you
    see on oleks mulle meile jah sobib sobiks hea hästi väga tore suurepärane super olgu aitäh tänan
    это то мне нам да хорошо отлично подходит подойдёт подойдет годится прекрасно супер ладно спасибо
    вполне очень
    """.split()
)
_CLAUSE = re.compile(r"[.,!;:]+")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)


def opens_with_acceptance(message: str) -> bool:
    """Whether the message opens with a clause that only accepts what the assistant just
    presented and then goes on ("That will work, please reserve." / "Sounds good. Can
    you make me a reservation?"): the request that follows is about that thing."""
    head, *rest = _CLAUSE.split(message.strip(), maxsplit=1)
    words = [w.casefold() for w in _WORD.findall(head)]
    return bool(words) and bool(rest and _WORD.search(rest[0])) and all(w in _ACCEPTANCE_WORDS for w in words)
