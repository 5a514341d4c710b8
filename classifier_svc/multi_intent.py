"""Deterministic intent decomposition: split a message at conjunctions.

"Find an address and also calculate my vehicle tax" → two focused sub-queries.
The split is only a proposal: the router keeps it when each part matches a
different endpoint on its own, so a false split ("Estonia and Latvia") costs a
search and nothing else.
"""

from __future__ import annotations

import re

_SEPARATORS = re.compile(
    r"\s*(?:;|\?\s+|\band also\b|\bas well as\b|\band\b|\bplus\b|(?<=\s)[+&](?=\s)"
    r"|\bja ka\b|\bning\b|\bja\b|\bsamuti\b"
    r"|\bа также\b|\bи ещё\b|\bи еще\b|\bи\b)\s*",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
MIN_WORDS_PER_PART = 2


# A sentence after a question that only says why, in the first person ("…? tahaks riiga
# poodi minna", "…? хотим в Стокгольм поехать", "…? we're driving there"): the citizen's
# plan, no request of its own, unless it carries a value (a number: "I need 123ABC too").
_REASON = re.compile(
    r"^\W*(?:i|we|i'm|we're|im|i'd|we'd|tahaks\w*|tahan|tahame|plaani\w*|lähen|läheme|sõidan|sõidame|"
    r"lähme|я|мы|хочу|хотим|хотел\w*|едем|поедем|собира\w+|планиру\w+)(?!\w)",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")


def split_intents(message: str, max_parts: int) -> list[str]:
    """Sub-queries of a message that may carry several intents; [] when it has one."""
    parts: list[str] = []
    start, after_question = 0, False
    for sep in (*_SEPARATORS.finditer(message), None):
        piece = message[start : sep.start() if sep is not None else len(message)]
        if not (after_question and "?" not in piece and _REASON.match(piece) and not _DIGIT.search(piece)):
            parts.append(piece.strip(" ,.?!"))
        if sep is None:
            break
        start, after_question = sep.end(), "?" in sep.group(0) or (after_question and "?" not in piece)
    parts = [p for p in parts if len(_WORD.findall(p)) >= MIN_WORDS_PER_PART]
    if len(parts) < 2:
        return []
    return parts[:max_parts]
