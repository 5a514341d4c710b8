"""Street addresses written anywhere in a message, without a keyword in front:
"Ülikooli 18, Tartu", "Viru tn 4 Tallinn", "Нарвское шоссе 5, Таллинн", "улица Ленина 5".

A street is one to three capitalised words (a street-type word such as tn, mnt,
puiestee, street, шоссе, улица may sit among them), then a house number
(12, 12a, 12-3, 12/3), then optionally a capitalised town."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from loop_svc.extraction.text import outside

_CAP = r"[A-ZÕÄÖÜŠŽА-ЯЁ][\w'’-]*"
_TYPE = (
    r"(?:tn\.?|tänav|mnt\.?|maantee|pst\.?|puiestee|tee|väljak|põik|street|st\.?|road|rd\.?|avenue|ave\.?|"
    r"lane|шоссе|улица|ул\.|проспект|пр\.|переулок|пер\.|бульвар|площадь)"
)
_HOUSE = r"\d{1,4}[a-zA-Zа-я]?(?:[-/]\d{1,4}[a-zA-Zа-я]?)?"
_ADDRESS = re.compile(
    rf"(?<![\w])(?P<street>(?:{_TYPE}\s+)?{_CAP}(?:\s+(?:{_CAP}|{_TYPE})){{0,2}})\s+(?P<house>{_HOUSE})(?![\w])"
    rf"(?P<town>,?\s+{_CAP})?"
)
# Capitalised words that start sentences or questions, never streets.
_NOT_STREETS = frozenset(
    "what where which when how is are the a an my mis kus kuidas millal milline mida palun find leia "
    "найди где какой какая что мой please show tell give".split()
)


@dataclass(frozen=True)
class AddressMention:
    value: str
    start: int
    end: int


def find_address(text: str, taken: Sequence[tuple[int, int]] = ()) -> AddressMention | None:
    for m in _ADDRESS.finditer(text):
        words = m.group("street").split()
        # Drop leading question/command words that happen to be capitalised ("Find Viru 4").
        while words and words[0].lower() in _NOT_STREETS:
            words = words[1:]
        if not words:
            continue
        start = m.start("street") + m.group("street").index(words[0])
        end = m.end()
        if not outside(list(taken), start, m.end("house")):
            continue
        value = text[start:end].strip(" ,.;:!?")
        return AddressMention(value, start, end)
    return None
