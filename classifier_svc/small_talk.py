"""The CONTEXT layer's deterministic path: greetings and thanks.

Only whole short messages count ("Tere!", "thanks a lot"), so a question that
starts with "hi" still goes to the catalogue first.
"""

from __future__ import annotations

import re
from enum import StrEnum

from classifier_svc.messages import GREETING, THANKS
from services.language import Lang


class SmallTalk(StrEnum):
    GREETING = "greeting"
    THANKS = "thanks"


_GREETING = re.compile(
    r"^(hi|hello|hey|good (morning|afternoon|evening)|tere|tervist|tšau|hei|"
    r"tere (hommikust|päevast|õhtust)|привет|здравствуйте|здравствуй|добрый (день|вечер)|доброе утро)"
    r"( there)?[\s!.,]*$",
    re.IGNORECASE,
)
_THANKS = re.compile(
    r"^(thanks?( you)?( a lot| very much)?|thx|aitäh|tänan( väga)?|suur aitäh|"
    r"спасибо( большое)?|благодарю)[\s!.,]*$",
    re.IGNORECASE,
)


def classify_small_talk(message: str) -> SmallTalk | None:
    text = message.strip()
    if _GREETING.match(text):
        return SmallTalk.GREETING
    if _THANKS.match(text):
        return SmallTalk.THANKS
    return None


def small_talk_reply(kind: SmallTalk, lang: Lang) -> str:
    return (GREETING if kind is SmallTalk.GREETING else THANKS)[lang]
