"""Knowledge-base passages as the RAG layer sees them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Passage:
    document_id: str
    title: str
    section: str
    text: str
    url: str
    language: str
    dense_cosine: float
    hybrid_rank: int
    matched_terms: int = 0
    query_terms: int = 0
    # The page's other names for its topic (its source's `keywords`): words like the title's.
    keywords: tuple[str, ...] = ()
    # The question's words that name this page's topic and few other retrieved pages' topics
    # (classifier_svc.rag_lexical.with_topic_evidence).
    topic_terms: int = 0

    @property
    def topic(self) -> str:
        """What names the page's topic: its title and its other names."""
        return " ".join((self.title, *self.keywords))

    @property
    def term_coverage(self) -> float:
        if not self.query_terms:
            return 1.0 if self.matched_terms else 0.0
        return min(1.0, self.matched_terms / self.query_terms)


@dataclass(frozen=True)
class Source:
    title: str
    url: str


def sources_of(passages: tuple[Passage, ...] | list[Passage]) -> list[Source]:
    """One source per document (its title, and section when the title alone is ambiguous)."""
    seen: dict[tuple[str, str], Source] = {}
    for passage in passages:
        key = (passage.title, passage.url)
        if key not in seen:
            seen[key] = Source(passage.title or passage.document_id, passage.url)
    return list(seen.values())
