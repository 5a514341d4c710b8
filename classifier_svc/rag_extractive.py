"""The RAG answer without an LLM: the best passage's sentences that address the
question, in the passage's own language, led by where they come from.

Sentences are scored by the question's content words they contain (by stem); the
best ones are kept in their original order, so the answer reads like the source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from classifier_svc.passages import Passage
from services.language import Lang, parse_lang
from services.text import STOPWORDS, Stemmer, content_words, split_sentences, tokenize

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
    def __init__(self, stemmer: Stemmer | None = None) -> None:
        self._stemmer = stemmer or Stemmer()

    def answer(self, question: str, passages: Sequence[Passage], lang: Lang) -> ExtractiveAnswer:
        """`passages` best first (non-empty). Passages in the question's language are
        preferred; the answer is in the language of the passage it quotes."""
        same_language = [p for p in passages if p.language == lang] or list(passages)
        top = same_language[0]
        # Within the best document, the section whose heading echoes the question's own
        # words ("How to apply" for "How do I apply…?", "Kuidas taotleda") answers it;
        # question words are stopwords, so they are compared as plain words here.
        document = [p for p in same_language if p.title == top.title]
        best = max(document, key=lambda p: (self._heading_overlap(question, p.section), -document.index(p)))
        sentences = self._best_sentences(question, best)
        passage_lang = parse_lang(best.language) or lang
        lead = _LEAD[passage_lang].format(title=best.title or best.section or best.document_id)
        return ExtractiveAnswer(f"{lead}\n\n{' '.join(sentences)}", [best])

    def _heading_overlap(self, question: str, heading: str) -> int:
        """How well a section heading echoes the question: the same question word first
        ("How do I…" / "How to apply", "Kuidas…" / "Kuidas taotleda", "Как…" / "Как
        подать") counts most, then shared words and stems."""
        if not heading:
            return 0
        question_words, heading_words = tokenize(question), tokenize(heading)
        if not question_words or not heading_words:
            return 0
        same_opening = question_words[0] == heading_words[0] and question_words[0] in STOPWORDS
        stems = {s for w in question_words for s in self._stemmer.terms(w)}
        shared = len(set(question_words) & set(heading_words)) + len(
            stems & set(self._stemmer.terms(heading))
        )
        return 3 * same_opening + shared

    def _best_sentences(self, question: str, passage: Passage) -> list[str]:
        """A short section is quoted whole (it was chosen because it answers the question);
        a long one is trimmed to the sentences sharing most words with the question,
        kept in their original order."""
        sentences = split_sentences(passage.text.replace("\n\n", " "))
        if sum(len(s) for s in sentences) <= MAX_CHARS and len(sentences) <= MAX_SENTENCES:
            return sentences
        question_stems = {s for w in content_words(question) for s in self._stemmer.terms(w)}
        scored = [
            (len(question_stems & set(self._stemmer.terms(sentence))), position, sentence)
            for position, sentence in enumerate(sentences)
        ]
        chosen: list[tuple[int, str]] = []
        length = 0
        for score, position, sentence in sorted(scored, key=lambda s: (-s[0], s[1])):
            if len(chosen) >= MAX_SENTENCES or (chosen and score == 0):
                break
            if chosen and length + len(sentence) > MAX_CHARS:
                continue
            chosen.append((position, sentence))
            length += len(sentence)
        return [sentence for _, sentence in sorted(chosen)]
