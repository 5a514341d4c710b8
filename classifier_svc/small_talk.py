"""The CONTEXT layer's deterministic path: greetings and thanks.

Only whole short messages count ("Tere!", "thanks a lot"), so a question that
starts with "hi" still goes to the catalogue first. The words themselves tell the
language: "Tere!" is too short for a language detector, but it is Estonian.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from classifier_svc.messages import GREETING, THANKS
from services.language import Lang


class SmallTalkKind(StrEnum):
    GREETING = "greeting"
    THANKS = "thanks"


@dataclass(frozen=True)
class SmallTalk:
    kind: SmallTalkKind
    language: Lang


_END = r"[\s!.,]*$"
_PHRASES: dict[tuple[SmallTalkKind, Lang], re.Pattern[str]] = {
    (SmallTalkKind.GREETING, "en"): re.compile(
        r"^(hi|hello|hey|good (morning|afternoon|evening))( there)?" + _END, re.IGNORECASE
    ),
    (SmallTalkKind.GREETING, "et"): re.compile(
        r"^(tere|tervist|tšau|hei|tere (hommikust|päevast|õhtust))" + _END, re.IGNORECASE
    ),
    (SmallTalkKind.GREETING, "ru"): re.compile(
        r"^(привет|здравствуйте|здравствуй|добрый (день|вечер)|доброе утро)" + _END, re.IGNORECASE
    ),
    (SmallTalkKind.THANKS, "en"): re.compile(
        r"^(thanks?( you)?( a lot| very much)?|thx)" + _END, re.IGNORECASE
    ),
    (SmallTalkKind.THANKS, "et"): re.compile(r"^(aitäh|tänan( väga)?|suur aitäh)" + _END, re.IGNORECASE),
    (SmallTalkKind.THANKS, "ru"): re.compile(r"^(спасибо( большое)?|благодарю)" + _END, re.IGNORECASE),
}


def classify_small_talk(message: str) -> SmallTalk | None:
    text = message.strip()
    for (kind, language), pattern in _PHRASES.items():
        if pattern.match(text):
            return SmallTalk(kind, language)
    return None


def small_talk_reply(kind: SmallTalkKind, lang: Lang) -> str:
    return (GREETING if kind is SmallTalkKind.GREETING else THANKS)[lang]
