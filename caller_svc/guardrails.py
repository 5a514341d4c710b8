"""Output guardrails, buffer-first: API text is cleaned before it is formatted,
and the whole answer is checked before its first token leaves the caller.

Cleaning removes what must never reach a chat page or a terminal: HTML/script
markup, `javascript:`-style links and ANSI/control characters. The check blocks
answers that are raw JSON dumps or that repeat instruction-like text found in
the API data (a prompt injection riding on a response) or credential-like text
(`password=…`, `api_key: …`); a blocked answer is replaced by a localized safe message.

Everything else derived from API data passes the same checks: call summaries (which
reach call_outcome events, the result store and an LLM formatter's context) go through
`guarded_summary` — cleaned, and when they would carry blocked text, replaced by a
structural summary with no API text in it — and a body that is not JSON is shown as a
short cleaned excerpt (`text_excerpt`), never dumped.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from services.language import Lang

log = logging.getLogger("atc.caller.guardrails")

_SCRIPT_BLOCK = re.compile(r"<\s*(script|style|iframe|object|embed)\b.*?(<\s*/\s*\1\s*>|$)", re.I | re.S)
_TAG = re.compile(r"<\s*/?\s*[a-zA-Z!][^<>]*>")
_DANGEROUS_SCHEME = re.compile(r"\b(javascript|vbscript|data)\s*:", re.I)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_INSTRUCTION = re.compile(
    r"(ignore|disregard|forget|override)\b.{0,40}\b(instruction|prompt|rule|previous|above)"
    r"|\b(system prompt|you are now|new instructions|developer mode|jailbreak)\b"
    r"|игнорир\w*.{0,40}инструкц|забудь\w*.{0,40}(инструкц|правил)|ты теперь\b"
    r"|ignoreeri\w*.{0,40}(juhis|juhend|reegl)|unusta\w*.{0,40}(juhis|juhend|reegl)",
    re.I | re.S,
)

_SECRET_LIKE = re.compile(
    r"\b(password|passwd|pwd|passphrase|secret|api[_-]?key|access[_-]?key|auth[_-]?token|token|pin)"
    r"\s*[:=]\s*\S",
    re.I,
)
# Pieces of JSON syntax: an answer full of them is a dump, even of JSON that does not parse.
_JSON_SYNTAX = re.compile(r'"\s*:\s*["\[{\d]|"\s*,\s*"|[{\[]\s*"')
_EXCERPT_CHARS = 300

SAFE_MESSAGES: dict[Lang, str] = {
    "en": "I received an answer from the service, but it cannot be shown safely. Please try again later.",
    "et": "Sain teenuselt vastuse, kuid seda ei saa turvaliselt näidata. Palun proovige hiljem uuesti.",
    "ru": "Сервис ответил, но этот ответ нельзя безопасно показать. Пожалуйста, попробуйте позже.",
}


def clean_text(text: str) -> str:
    """API text without markup, script links or control characters (newlines and tabs stay)."""
    text = _ANSI.sub("", text)
    text = _SCRIPT_BLOCK.sub("", text)
    text = _TAG.sub("", text)
    text = _DANGEROUS_SCHEME.sub(lambda m: f"{m.group(1)} ", text)
    return _CONTROL.sub("", text)


def clean_data(data: Any) -> Any:
    """The same JSON with every string (keys included) cleaned."""
    if isinstance(data, str):
        return clean_text(data)
    if isinstance(data, list):
        return [clean_data(item) for item in data]
    if isinstance(data, dict):
        return {clean_text(str(key)): clean_data(value) for key, value in data.items()}
    return data


def instruction_like(texts: Iterable[str]) -> list[str]:
    """Pieces of API text that read like instructions to a model."""
    return [match.group(0) for text in texts for match in [_INSTRUCTION.search(text)] if match]


def data_strings(data: Any, limit: int = 5000) -> list[str]:
    """Every string in a JSON value (keys included), at most `limit` of them."""
    found: list[str] = []
    stack = [data]
    while stack and len(found) < limit:
        value = stack.pop()
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            found.extend(str(key) for key in value)
            stack.extend(value.values())
    return found


def _looks_like_json_dump(answer: str) -> bool:
    stripped = answer.strip()
    for start in ("{", "["):
        at, tries = stripped.find(start), 0
        while at != -1 and tries < 50:
            tries += 1
            try:
                value, _ = json.JSONDecoder().raw_decode(stripped[at:])
            except ValueError:
                value = None
            if isinstance(value, dict | list) and len(json.dumps(value)) > 80:
                return True
            at = stripped.find(start, at + 1)
    if len(_JSON_SYNTAX.findall(stripped)) >= 4:
        return True
    punctuation = sum(stripped.count(c) for c in '{}[]":')
    return len(stripped) > 200 and punctuation / len(stripped) > 0.15


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    text: str
    reason: str = ""


def blocked_reason(text: str, api_texts: Iterable[str]) -> str:
    """Why `text` (already cleaned) may not be shown, or "" when it may."""
    if _looks_like_json_dump(text):
        return "raw JSON"
    echoed = [piece for piece in instruction_like(api_texts) if piece.lower() in text.lower()]
    if echoed or instruction_like([text]):
        return f"instruction-like text: {(echoed or instruction_like([text]))[0]!r}"
    secret = _SECRET_LIKE.search(text)
    if secret:
        return f"credential-like text: {secret.group(1)!r}"
    return ""


def check_answer(answer: str, api_texts: Iterable[str], lang: Lang) -> Verdict:
    """Whether `answer` may be shown; the text to show either way."""
    cleaned = clean_text(answer)
    reason = blocked_reason(cleaned, list(api_texts))
    if reason:
        log.warning("answer blocked by output guardrails: %s", reason)
        return Verdict(False, SAFE_MESSAGES[lang], reason)
    if cleaned != answer:
        log.info("answer cleaned by output guardrails (markup or control characters)")
    return Verdict(True, cleaned)


def structural_summary(data: Any) -> str:
    """A summary with no API text in it: only the shape of the data."""
    if isinstance(data, list):
        return f"The API returned a list of {len(data)} item(s)."
    if isinstance(data, dict):
        return f"The API returned an object with {len(data)} field(s)."
    if isinstance(data, str):
        return f"The API returned text ({len(data)} characters), not JSON."
    return "The API returned a value."


def guarded_summary(summary: str, data: Any) -> str:
    """`summary` (made from `data`) as it may be shown: cleaned, or — when it would carry
    what the answer's guardrails block — the structural summary instead."""
    cleaned = clean_text(summary)
    reason = blocked_reason(cleaned, data_strings(data))
    if reason:
        log.warning("summary replaced by output guardrails: %s", reason)
        return structural_summary(data)
    return cleaned


def text_excerpt(text: str, limit: int = _EXCERPT_CHARS) -> str:
    """A body that is not JSON, as text a reader may see: cleaned of markup and control
    characters, whitespace collapsed, cut at a word within `limit` characters."""
    flat = " ".join(clean_text(text).split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] or flat[:limit]
    return cut.rstrip(" ,;:") + "…"


def presentable(data: Any) -> Any:
    """API data as the formatter may show it: JSON cleaned string by string, text as an excerpt."""
    return text_excerpt(data) if isinstance(data, str) else clean_data(data)
