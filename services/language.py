"""Languages the mesh speaks (en, et, ru) and detection of a message's language.

Short replies ("jah", "2026-01-01") cannot be judged reliably, so callers keep
the session language for them and use `LanguageDetector.detect` only on
messages long enough to carry signal.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from atc.common.v1 import chat_pb2

Lang = Literal["en", "et", "ru"]
SUPPORTED: tuple[Lang, ...] = get_args(Lang)
DEFAULT_LANG: Lang = "en"

_TO_PROTO: dict[Lang, int] = {
    "en": chat_pb2.LANGUAGE_EN,
    "et": chat_pb2.LANGUAGE_ET,
    "ru": chat_pb2.LANGUAGE_RU,
}
_FROM_PROTO: dict[int, Lang] = {v: k for k, v in _TO_PROTO.items()}

LANGUAGE_NAMES: dict[Lang, str] = {"en": "English", "et": "Estonian", "ru": "Russian"}

_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_ESTONIAN_LETTERS = re.compile(r"[õäöüšžÕÄÖÜŠŽ]")
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)


def parse_lang(value: str | None) -> Lang | None:
    """'et', 'ET', 'et-EE', 'Estonian' → 'et'; anything else → None."""
    if not value:
        return None
    key = value.strip().lower().replace("_", "-").split("-")[0]
    for lang, name in LANGUAGE_NAMES.items():
        if key in (lang, name.lower()):
            return lang
    return None


def to_proto(lang: Lang | None) -> int:
    return _TO_PROTO[lang] if lang else chat_pb2.LANGUAGE_UNSPECIFIED


def from_proto(value: int) -> Lang | None:
    return _FROM_PROTO.get(value)


class LanguageDetector:
    """py3langid restricted to en/et/ru, with script shortcuts for certain cases."""

    def __init__(self, min_letters: int = 8, min_confidence: float = 0.8) -> None:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        self._identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        self._identifier.set_languages(list(SUPPORTED))
        # The identifier keeps its full 97-language table (≈ 27 MiB) only to undo
        # set_languages, which this detector never does: keep the restricted one alone.
        self._identifier._full_model = (
            self._identifier.nb_ptc,
            self._identifier.nb_pc,
            self._identifier.nb_classes,
        )
        self._min_letters = min_letters
        self._min_confidence = min_confidence

    def detect(self, text: str, fallback: Lang | None = None) -> Lang:
        """The message's language, or `fallback` (then English) when it is too short to tell."""
        letters = len(_LETTERS.findall(text))
        if _CYRILLIC.search(text) and len(_CYRILLIC.findall(text)) * 2 >= letters:
            return "ru"
        if letters < self._min_letters:
            if _ESTONIAN_LETTERS.search(text):
                return "et"
            return fallback or DEFAULT_LANG
        lang, confidence = self._identifier.classify(text)
        if confidence < self._min_confidence and fallback:
            return fallback
        return parse_lang(lang) or fallback or DEFAULT_LANG
