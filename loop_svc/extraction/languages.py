"""Languages named in a message ("in English", "eesti keeles", "на русском")
→ ISO 639-1 codes. Only explicit phrasings count: a language parameter is
filled when the user clearly asked for one, never guessed from the message's
own language."""

from __future__ import annotations

import re
from dataclasses import dataclass

# code: (English name, Estonian stem before "keel", Russian adjective stem)
_LANGUAGES: dict[str, tuple[str, str, str]] = {
    "en": ("english", "inglise", "английск"),
    "et": ("estonian", "eesti", "эстонск"),
    "ru": ("russian", "vene", "русск"),
    "de": ("german", "saksa", "немецк"),
    "fi": ("finnish", "soome", "финск"),
    "lv": ("latvian", "läti", "латышск"),
    "lt": ("lithuanian", "leedu", "литовск"),
    "fr": ("french", "prantsuse", "французск"),
    "es": ("spanish", "hispaania", "испанск"),
    "sv": ("swedish", "rootsi", "шведск"),
    "uk": ("ukrainian", "ukraina", "украинск"),
    "pl": ("polish", "poola", "польск"),
}
CODES = frozenset(_LANGUAGES)


def _alternatives(index: int) -> str:
    return "|".join(re.escape(names[index]) for names in _LANGUAGES.values())


_PATTERNS = [
    (re.compile(rf"\bin ({_alternatives(0)})\b|\b({_alternatives(0)}) language\b", re.I), 0),
    (re.compile(rf"\b({_alternatives(1)})[ -]?keel", re.I), 1),
    (re.compile(rf"(?:\bна\s+)?\b({_alternatives(2)})\w*(?:\s+язык\w*)", re.I), 2),
    (re.compile(rf"\bна\s+({_alternatives(2)})\w*", re.I), 2),
]


@dataclass(frozen=True)
class LanguageMention:
    code: str
    start: int
    end: int


def find_languages(text: str) -> list[LanguageMention]:
    mentions: list[LanguageMention] = []
    for pattern, index in _PATTERNS:
        for match in pattern.finditer(text):
            name = next(g for g in match.groups() if g).lower()
            code = next(c for c, names in _LANGUAGES.items() if names[index] == name)
            if not any(m.start <= match.start() < m.end for m in mentions):
                mentions.append(LanguageMention(code, match.start(), match.end()))
    return sorted(mentions, key=lambda m: m.start)
