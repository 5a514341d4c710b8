"""The RAG answer without an LLM: the best passage's sentences that address the
question, in the passage's own language, led by where they come from.

Sentences are scored by the question's content words they contain (by stem); the
best ones are kept in their original order, so the answer reads like the source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from classifier_svc.passages import Passage
from services.knowledge.chunking import split_sentences
from services.language import Lang, parse_lang
from services.sparse import SparseEncoder, content_words

MAX_SENTENCES = 4
MAX_CHARS = 700

_LEAD: dict[Lang, str] = {
    "en": "According to “{title}”:",
    "et": "Allika „{title}“ järgi:",
    "ru": "Согласно «{title}»:",
}


@dataclass(frozen=True)
class ExtractiveAnswer:
    text: str
    # The passages the sentences were taken from.
    used: list[Passage]


class ExtractiveAnswerer:
    def __init__(self, sparse: SparseEncoder | None = None) -> None:
        self._sparse = sparse or SparseEncoder()

    def answer(self, question: str, passages: Sequence[Passage], lang: Lang) -> ExtractiveAnswer:
        """`passages` best first (non-empty). Passages in the question's language are
        preferred; the answer is in the language of the passage it quotes."""
        same_language = [p for p in passages if p.language == lang]
        best = (same_language or list(passages))[0]
        # Further passages of the same document can add sentences (another section).
        related = [p for p in (same_language or passages) if p.title == best.title and p is not best]
        sentences = self._best_sentences(question, [best, *related])
        passage_lang = parse_lang(best.language) or lang
        lead = _LEAD[passage_lang].format(title=best.title or best.section or best.document_id)
        return ExtractiveAnswer(f"{lead}\n\n{' '.join(sentences)}", [best, *related])

    def _best_sentences(self, question: str, passages: Sequence[Passage]) -> list[str]:
        question_stems = {s for w in content_words(question) for s in self._sparse.terms(w)}
        scored: list[tuple[float, int, str]] = []
        order = 0
        for rank, passage in enumerate(passages):
            for sentence in split_sentences(passage.text.replace("\n\n", " ")):
                stems = set(self._sparse.terms(sentence))
                overlap = len(question_stems & stems)
                # Earlier passages and earlier sentences win ties: they are the better match.
                scored.append((overlap - 0.5 * rank, order, sentence))
                order += 1
        if not scored:
            return []
        ranked = sorted(scored, key=lambda s: (-s[0], s[1]))
        chosen: list[tuple[int, str]] = []
        length = 0
        for score, position, sentence in ranked:
            if len(chosen) >= MAX_SENTENCES or (chosen and score <= 0):
                break
            if chosen and length + len(sentence) > MAX_CHARS:
                continue
            chosen.append((position, sentence))
            length += len(sentence)
        if len(chosen) == 1 and ranked[0][0] <= 0:
            # Nothing in the passage shares a word with the question (a paraphrase):
            # its opening sentences say what it is about.
            chosen = [(s[1], s[2]) for s in sorted(scored, key=lambda s: s[1])[:2]]
        return [sentence for _, sentence in sorted(chosen)]
