"""The CONTEXT layer's deterministic path: greetings, thanks, "how are you?" and
"what can you do?".

Only whole short messages count ("Tere!", "thanks a lot"), so a question that
starts with "hi" still goes to the catalogue first. The words themselves tell the
language: "Tere!" is too short for a language detector, but it is Estonian.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from classifier_svc.messages import CAPABILITIES, GREETING, HOW_ARE_YOU, THANKS
from services.language import Lang


class SmallTalkKind(StrEnum):
    GREETING = "greeting"
    THANKS = "thanks"
    HOW_ARE_YOU = "how_are_you"
    CAPABILITIES = "capabilities"


@dataclass(frozen=True)
class SmallTalk:
    kind: SmallTalkKind
    language: Lang


_END = r"[\s!.,?)]*$"
# An optional greeting in front: "Hi, what can you do?", "Привет, как дела?".
_HELLO = {
    "en": r"^((hi|hello|hey)( there)?[\s,!.]+)?",
    "et": r"^((tere|tervist|hei)[\s,!.]+)?",
    "ru": r"^((привет|здравствуйте|здравствуй)[\s,!.]+)?",
}
_PHRASES: dict[tuple[SmallTalkKind, Lang], re.Pattern[str]] = {
    (SmallTalkKind.HOW_ARE_YOU, "en"): re.compile(
        _HELLO["en"] + r"(how are you( doing)?|how'?s it going|how do you do)" + _END, re.IGNORECASE
    ),
    (SmallTalkKind.HOW_ARE_YOU, "et"): re.compile(
        _HELLO["et"] + r"(kuidas (läheb|sul läheb|teil läheb|käsi käib|elad)|mis teed)" + _END, re.IGNORECASE
    ),
    (SmallTalkKind.HOW_ARE_YOU, "ru"): re.compile(
        _HELLO["ru"] + r"(как (дела|у тебя дела|у вас дела|поживаете|ты))" + _END, re.IGNORECASE
    ),
    (SmallTalkKind.CAPABILITIES, "en"): re.compile(
        _HELLO["en"]
        + r"(what (can|do) you (do|help( me)? with)|how can you help( me)?|what are you|who are you"
        + r"|what is this|help)"
        + _END,
        re.IGNORECASE,
    ),
    (SmallTalkKind.CAPABILITIES, "et"): re.compile(
        _HELLO["et"]
        + r"(mida (sa|te) (oskad|oskate|teha oskad|teha oskate|teed|teete)"
        + r"|millega (sa|te) (saad|saate) aidata"
        + r"|kes (sa|te) oled|kes te olete|mis sa oled|abi)"
        + _END,
        re.IGNORECASE,
    ),
    (SmallTalkKind.CAPABILITIES, "ru"): re.compile(
        _HELLO["ru"]
        + r"(что (ты|вы) (умеешь|умеете|можешь|можете)( делать)?|чем (ты|вы) (можешь|можете) помочь"
        + r"|кто (ты|вы)|помощь)"
        + _END,
        re.IGNORECASE,
    ),
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


_REPLIES = {
    SmallTalkKind.GREETING: GREETING,
    SmallTalkKind.THANKS: THANKS,
    SmallTalkKind.HOW_ARE_YOU: HOW_ARE_YOU,
    SmallTalkKind.CAPABILITIES: CAPABILITIES,
}


def small_talk_reply(kind: SmallTalkKind, lang: Lang) -> str:
    return _REPLIES[kind][lang]
