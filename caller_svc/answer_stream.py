"""Output guardrails for an answer that streams as the model writes it: the text is
buffered to a sentence boundary, each sentence is cleaned and checked
(caller_svc/guardrails.py) together with what already went out, and only then sent.
A sentence the checks withhold never reaches the citizen; the answer goes on with the
next one. (A whole answer — deterministic, or several results — is checked whole
before any of it leaves: `guardrails.check_answer`.)"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from caller_svc.guardrails import blocked_reason, clean_text

log = logging.getLogger("atc.caller.answer_stream")

# The end of a sentence: its closing punctuation (and quotes or brackets) and the space
# after it, or a line break. "58.5" and "1.5x" are no boundary (no space after the dot);
# nor is a dot followed by a lowercase word: Estonian ordinals ("1. jaanuaril",
# "2026. aastal") and abbreviations ("nt. see") go on with the sentence.
_BOUNDARY = re.compile(r"[.!?…]+[\"'»”’)\]]*[ \t]+|\s*\n+")
# A "sentence" with no boundary this long is sent (checked) at its last space.
MAX_SENTENCE_CHARS = 1_000


class SentenceGuard:
    def __init__(self, api_texts: Iterable[str], *, max_sentence_chars: int = MAX_SENTENCE_CHARS) -> None:
        self._api_texts = list(api_texts)
        self._max = max_sentence_chars
        self._buffer = ""
        self._sent = ""
        self.withheld: list[str] = []

    @property
    def sent(self) -> str:
        """Everything released so far."""
        return self._sent

    def feed(self, piece: str) -> list[str]:
        """The sentences `piece` completes that may go out, in order."""
        self._buffer += piece
        released: list[str] = []
        while (cut := self._cut()) is not None:
            sentence, self._buffer = self._buffer[:cut], self._buffer[cut:]
            released.extend(self._checked(sentence))
        return released

    def finish(self) -> list[str]:
        """The rest of the buffer, checked, when the model has finished."""
        rest, self._buffer = self._buffer, ""
        return self._checked(rest) if rest.strip() else []

    def _cut(self) -> int | None:
        for match in _BOUNDARY.finditer(self._buffer):
            if "\n" in match.group():
                return match.end()
            if match.end() == len(self._buffer):
                break  # what comes next decides: wait for it
            if not self._buffer[match.end()].islower():
                return match.end()
        if len(self._buffer) > self._max:
            space = self._buffer.rfind(" ", 0, self._max)
            return space + 1 if space > 0 else self._max
        return None

    def _checked(self, sentence: str) -> list[str]:
        cleaned = clean_text(sentence)
        if not cleaned.strip():
            # Whitespace between sentences goes out as it came (never before the first).
            if self._sent:
                self._sent += cleaned
                return [cleaned]
            return []
        # Checked with what went out already: a dump or an echoed instruction that spans
        # sentences is caught by the sentence that completes it.
        reason = blocked_reason(cleaned, self._api_texts) or blocked_reason(
            self._sent + cleaned, self._api_texts
        )
        if reason:
            log.warning("a sentence of the streamed answer was withheld: %s", reason)
            self.withheld.append(reason)
            return []
        self._sent += cleaned
        return [cleaned]
