"""Does a reply inside an active session answer the question being asked?

When it does ("2026-01-01 kuni 2026-12-31" to a date question, "123ABC" to a plate
question), it is an answer, and the router skips the intent-switch search altogether.
Only a reply that fits none of the pending parameters pays for the switch check.
The check is by type, not by value: the loop extracts and validates the value itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from classifier_svc.candidates import PendingParam

_DATE = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[./]\d{1,2}([./]\d{2,4})?\b|\b\d{1,2}\.?\s*[a-zа-яõäöü]{3,}"
    r"|\b(today|tomorrow|yesterday|next|last|this|täna|homme|eile|ülehomme|järgmi\w*|eelmi\w*|"
    r"сегодня|завтра|вчера|послезавтра|следующ\w*|прошл\w*|"
    r"jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*|"
    r"jaan\w*|veebr\w*|märts\w*|aprill\w*|mai\w*|juun\w*|juul\w*|augus\w*|septem\w*|oktoob\w*|"
    r"novemb\w*|detsemb\w*|январ\w*|феврал\w*|март\w*|апрел\w*|ма[йя]\w*|июн\w*|июл\w*|август\w*|"
    r"сентябр\w*|октябр\w*|ноябр\w*|декабр\w*)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|üks|kaks|kolm|neli|viis|kuus|seitse|"
    r"kaheksa|üheksa|kümme|один|два|три|четыре|пять|шесть|семь|восемь|девять|десять)\b",
    re.IGNORECASE,
)
_YES_NO = re.compile(r"^\W*(yes|no|jah|ei|да|нет|true|false)\b", re.IGNORECASE)
_QUESTION = re.compile(r"\?\s*$")
# A free-text value ("Narva mnt 5", "EE", "Tallinn") is short and asks nothing.
MAX_VALUE_WORDS = 6


def answers_pending(message: str, pending: Sequence[PendingParam]) -> bool:
    text = message.strip()
    if not text or not pending:
        return False
    for param in pending:
        if param.enum and any(v.casefold() in text.casefold() for v in param.enum if v):
            return True
        if param.type in ("date", "datetime") and _DATE.search(text):
            return True
        if param.type in ("integer", "number") and _NUMBER.search(text):
            return True
        if param.type == "boolean" and _YES_NO.match(text):
            return True
        if (
            param.type == "string"
            and not param.enum
            and not _QUESTION.search(text)
            and len(text.split()) <= MAX_VALUE_WORDS
        ):
            return True
    return False
