"""Split a text into stream pieces that concatenate back to exactly the text: words
(each with the whitespace after it) for a text shown at a reading pace, lines for a
text that is complete and sent at once."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\s*\S+\s*|\s+")
# A line with its line breaks; a very long line is cut after a word near this length.
_LINE = re.compile(r"[^\n]{1,160}(?:\S*)[ \t]*\n*|\n+")


def split_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def split_lines(text: str) -> list[str]:
    """A complete text as line-sized pieces. Every piece is one message through every
    hop of the mesh (caller → loop → classifier → edge → browser): sent word by word, a
    list of twelve holidays was ~120 messages a hop and the largest cost of a turn after
    the embedding; by line it is a dozen, and the page still fills line by line."""
    return _LINE.findall(text)
