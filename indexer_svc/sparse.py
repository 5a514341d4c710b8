"""Hashed term-frequency sparse vectors for hybrid search (Qdrant applies IDF).

The terms are the stems of services.text (function words dropped; Latin words stemmed
the English and the Estonian way, Cyrillic ones the Russian way). Each term maps to
MD5(term)[:4] big-endian % vocab_size: stable across processes (never Python's salted
hash()), so stored vectors stay valid across restarts. Colliding terms add up their
frequencies.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence

from indexer_svc.vector_index.models import SparseVector
from services.text import Stemmer, content_words

DEFAULT_VOCAB_SIZE = 50_000


def term_index(term: str, vocab_size: int = DEFAULT_VOCAB_SIZE) -> int:
    digest = hashlib.md5(term.encode("utf-8"), usedforsecurity=False).digest()
    return int.from_bytes(digest[:4], "big") % vocab_size


class SparseEncoder(Stemmer):
    """Not thread-safe (the stemmers keep state): call it from one thread, e.g. the event loop.
    It is cheap (tens of microseconds per short text)."""

    def __init__(self, vocab_size: int = DEFAULT_VOCAB_SIZE) -> None:
        if vocab_size <= 0:
            raise ValueError("vocab_size must be positive")
        super().__init__()
        self.vocab_size = vocab_size

    def word_stems(self, query: str) -> list[tuple[str, ...]]:
        """The stems of each distinct content word of `query`: computed once per search,
        then matched against every hit (`matched_terms`)."""
        return [self.stems(word) for word in content_words(query)]

    def matched_terms(self, word_stems: Sequence[Sequence[str]], text_terms: set[str]) -> int:
        """How many distinct content words of a query (`word_stems(query)`) occur, by
        stem, in a text whose `terms()` are `text_terms` (computed once at indexing:
        stemming an endpoint's text takes milliseconds, too long to repeat per search hit).

        Lexical evidence that does not depend on the embedding model: a small
        multilingual model scores unrelated questions almost as high as related ones,
        but an unrelated question rarely shares a content word with the endpoint's
        text. Numbers are left out: dates and years match parameter descriptions."""
        return sum(1 for stems in word_stems if any(stem in text_terms for stem in stems))

    def encode(self, text: str) -> SparseVector:
        return self.encode_terms(self.terms(text))

    def encode_terms(self, terms: Iterable[str]) -> SparseVector:
        frequencies: Counter[int] = Counter(term_index(term, self.vocab_size) for term in terms)
        indices = sorted(frequencies)
        return SparseVector(indices=indices, values=[float(frequencies[i]) for i in indices])

    def twin(self) -> SparseEncoder:
        """An encoder with the same vocabulary and stemmers of its own, for another thread."""
        return SparseEncoder(self.vocab_size)
