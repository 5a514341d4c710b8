"""The RAG answer without an LLM: for each aspect the question asks, the sentences of the
page that say it; plainly, the aspects the page does not say; yes or no first when the
page settles a yes/no question; the source at the end.

The question is split into its clauses (classifier_svc.rag_aspects.split_question), each
with its aspects. Every sentence of the page is scored per aspect: the aspect's evidence
in it (a duration for "how long", an amount or a fee for "how much", an online channel
for "can I … online"), the section heading naming the aspect ("Processing time",
"Kui palju ja kui kaua"), and the question's own words found in it (typo-tolerant,
classifier_svc.rag_lexical). A clause without an aspect ("is the working day before
Christmas Eve shorter?") is answered by the fewest sentences that contain its words.
The page's own words are quoted, in the page's language; the frame (yes/no, what the
page does not say, the source line) is in the citizen's language.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from classifier_svc.numerals import with_digits
from classifier_svc.passages import Passage
from classifier_svc.rag_aspects import (
    Aspect,
    QuestionPart,
    asked_tail,
    asks_necessity,
    automatic,
    evidence,
    fold,
    heading_cues,
    in_person_only,
    names_a_thing,
    necessary_act,
    negated,
    permissive,
    split_question,
)
from classifier_svc.rag_lexical import WordMatcher
from services.language import Lang, cyrillic_reading, parse_lang
from services.text import Stemmer, split_sentences

# Sentences one aspect is answered with, at most; and one clause without an aspect.
MAX_ASPECT_SENTENCES = 3
MAX_PLAIN_SENTENCES = 2
# A clause's own words (those not in the page title) the chosen sentences must contain
# to be its answer at all, and to settle a yes/no question: this share, or at least two.
RELATED_SHARE = 0.5
RELATED_WORDS = 2

# A sentence that states what a yes/no question asks holds at least this many of the
# question's own words, and this share of them.
STATEMENT_WORDS = 2
STATEMENT_SHARE = 0.5

# A second duration the page states answers "how long" beside the best one when it
# scores within this margin (the citizen's deadline and the office's processing time).
TIME_SCORE_MARGIN = 2

# A question's own word (not a cue, not the title's) that at most this many sentences of
# the page hold names what is asked; shorter words ("id", "ma") name nothing.
FOCUS_MAX_SENTENCES = 2
FOCUS_MIN_LETTERS = 3
# Aspects a sentence found by the question's own thing answers (a question word's aspect).
_FOCUS_ANSWERS = {Aspect.HOW, Aspect.COLLECT, Aspect.WHEN, Aspect.AFTER, Aspect.DEFINITION}

# Aspects whose answer is a list of things (where, what is needed, who): every sentence
# of the section that speaks of it; the others are one statement and its qualifier.
_LISTING = {
    Aspect.HOW,
    Aspect.DOCUMENTS,
    Aspect.ELIGIBILITY,
    Aspect.LOST,
    Aspect.AFTER,
    Aspect.WHY,
    Aspect.DEFINITION,
}

_YES: dict[Lang, str] = {"en": "Yes.", "et": "Jah.", "ru": "Да."}
_NO: dict[Lang, str] = {"en": "No.", "et": "Ei.", "ru": "Нет."}
_SOURCE: dict[Lang, str] = {"en": "Source", "et": "Allikas", "ru": "Источник"}
_NOT_SAID: dict[Lang, str] = {
    "en": "The page does not say {what}.",
    "et": "Lehel ei ole kirjas, {what}.",
    "ru": "На странице не указано, {what}.",
}
_WHAT: dict[Aspect, dict[Lang, str]] = {
    Aspect.TIME: {
        "en": "how long it takes",
        "et": "kui kaua see aega võtab",
        "ru": "сколько времени это занимает",
    },
    Aspect.VALIDITY: {"en": "how long it is valid", "et": "kui kaua see kehtib", "ru": "какой срок действия"},
    Aspect.COST: {"en": "how much it costs", "et": "kui palju see maksab", "ru": "сколько это стоит"},
    Aspect.DOCUMENTS: {
        "en": "which documents are needed",
        "et": "milliseid dokumente on vaja",
        "ru": "какие документы нужны",
    },
    Aspect.HOW: {
        "en": "how or where to apply",
        "et": "kuidas või kus taotleda",
        "ru": "как или где подать заявление",
    },
    Aspect.ONLINE: {
        "en": "whether it can be done online",
        "et": "kas seda saab teha internetis",
        "ru": "можно ли сделать это онлайн",
    },
    Aspect.ELIGIBILITY: {"en": "who can do it", "et": "kes seda teha saab", "ru": "кто может это сделать"},
    Aspect.LOST: {
        "en": "what to do if it is lost or stolen",
        "et": "mida teha, kui see on kadunud või varastatud",
        "ru": "что делать при утере или краже",
    },
    Aspect.COLLECT: {"en": "where to collect it", "et": "kust selle kätte saab", "ru": "где это получить"},
    Aspect.AFTER: {"en": "what happens next", "et": "mis edasi saab", "ru": "что происходит дальше"},
    Aspect.WHEN: {"en": "when to do it", "et": "millal seda teha", "ru": "когда это делать"},
    Aspect.WHY: {"en": "what it is for", "et": "milleks see on vajalik", "ru": "зачем это нужно"},
    Aspect.DEFINITION: {"en": "what it is", "et": "mis see on", "ru": "что это такое"},
}
_NO_AMOUNT: dict[Lang, str] = {
    "en": "The page does not say the exact amount.",
    "et": "Täpset summat lehel ei ole.",
    "ru": "Точная сумма на странице не указана.",
}
_NOT_ANSWERED: dict[Lang, str] = {
    "en": "The page “{title}” does not answer this; it covers: {sections}.",
    "et": "Leht „{title}“ sellele ei vasta; seal on juttu teemadel: {sections}.",
    "ru": "На странице «{title}» ответа на это нет; там говорится о следующем: {sections}.",
}
_OTHER_LANGUAGE: dict[Lang, str] = {
    "en": "This is answered only on a page in another language:",
    "et": "Sellele vastab ainult teises keeles leht:",
    "ru": "Ответ есть только на странице на другом языке:",
}
_QUOTE: dict[Lang, str] = {"en": "“{}”", "et": "„{}“", "ru": "«{}»"}


@dataclass(frozen=True)
class ExtractiveAnswer:
    text: str
    # The passages the sentences were taken from.
    used: list[Passage]
    # The asked aspects the page does not say (a cost without an amount counts).
    uncovered: tuple[Aspect, ...] = ()
    # "yes" or "no" when a yes/no question was settled.
    verdict: str | None = None


@dataclass(frozen=True)
class _Sentence:
    text: str
    passage: Passage
    order: tuple[int, int]  # (passage position on the page, sentence position)


@dataclass
class _PartAnswer:
    page: list[Passage]
    sentences: list[_Sentence] = field(default_factory=list)
    uncovered: list[Aspect] = field(default_factory=list)
    no_amount: bool = False
    verdict: str | None = None
    unanswered: bool = False


# The act a necessity question asks about is a word of more letters than this ("bring",
# "tooma", "приносить"), not a particle ("to", "ли", "ma").
ACT_MIN_LETTERS = 3
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_ALTERNATIVE = re.compile(r"(?<!\w)(?:or|voi|или)(?!\w)")


def page_of(passage: Passage) -> str:
    """The source document a passage belongs to (its id without the "#n" chunk number)."""
    return passage.document_id.rsplit("#", 1)[0]


def _chunk_number(passage: Passage) -> int:
    tail = passage.document_id.rsplit("#", 1)[-1]
    return int(tail) if tail.isdigit() else 0


class ExtractiveAnswerer:
    def __init__(self, stemmer: Stemmer | None = None) -> None:
        self._words = WordMatcher(stemmer or Stemmer())

    def answer(
        self,
        question: str,
        passages: Sequence[Passage],
        lang: Lang,
        part_passages: Sequence[Sequence[Passage]] | None = None,
    ) -> ExtractiveAnswer:
        """`passages` best first (non-empty); `part_passages`, when given, the passages
        retrieved for each clause of split_question(question), best first. Pages in the
        question's language are preferred."""
        pool = _preferred(passages, lang)
        if lang == "ru" and not _CYRILLIC.search(question):
            # Russian typed in Latin letters is read in Cyrillic: its cues and the page's
            # words are Cyrillic ("skolko let dejstvuet" asks a validity).
            question = cyrillic_reading(question)
        parts = split_question(question)
        answers: list[tuple[QuestionPart, _PartAnswer]] = []
        for position, part in enumerate(parts):
            found = part_passages[position] if part_passages and position < len(part_passages) else ()
            candidates = _preferred(found, lang) if found else pool
            page = self._page(page_of(candidates[0]), [*candidates, *pool, *passages])
            answers.append((part, self._answer_part(part, page)))
        return self._compose(answers, lang)

    # --- one clause ----------------------------------------------------------------

    def _page(self, page: str, passages: Sequence[Passage]) -> list[Passage]:
        seen: dict[tuple[str, str], Passage] = {}
        for passage in passages:
            key = (passage.document_id, passage.text)
            if page_of(passage) == page and key not in seen:
                seen[key] = passage
        return sorted(seen.values(), key=_chunk_number)

    def _answer_part(self, part: QuestionPart, page: list[Passage]) -> _PartAnswer:
        sentences = [
            _Sentence(text, passage, (p, s))
            for p, passage in enumerate(page)
            for s, text in enumerate(split_sentences(passage.text.replace("\n\n", " ")))
        ]
        result = _PartAnswer(page)
        title_words = self._words.words(page[0].title)
        question_words = self._words.words(part.text)
        own_words = {w for w in question_words if not self._words.match(w, title_words)} or question_words
        if part.aspects:
            for aspect in part.aspects:
                self._answer_aspect(aspect, part, own_words, sentences, result)
            self._add_focus(part, own_words, sentences, result)
        else:
            chosen = self._covering(own_words, sentences)
            if chosen and self._related(own_words, chosen):
                result.sentences += chosen
            elif named := self._named_section(own_words, sentences):
                result.sentences += named
            else:
                result.unanswered = True
        if part.yes_no:
            # The page's own statement of what a yes/no question asks ("The certificates of
            # an expired card cannot be renewed, so you cannot … log in to e-services") is
            # found by the question's words, whatever aspect its cue words suggest ("log
            # in to e-services" sounds like "online", "подписывать документы" like
            # "documents"): it is quoted and decides.
            stated = self._statement(part, own_words, sentences)
            if stated is not None:
                result.sentences.append(stated)
                result.unanswered = False
                if negated(stated.text) and not _ALTERNATIVE.search(fold(part.text)):
                    result.verdict = "no"
        if part.yes_no and not result.unanswered and result.verdict is None:
            result.verdict = self._verdict(part, own_words, title_words, sentences, result)
        result.sentences = sorted(dict.fromkeys(result.sentences), key=lambda s: s.order)
        return result

    def _named_section(self, words: set[str], sentences: list[_Sentence]) -> list[_Sentence]:
        """The sentences of the one section whose heading the question names ("what kinds
        of benefits are there": the section "Benefits"), when no sentence holds enough of
        its words: the section is what the page says of that thing."""
        sections: dict[str, list[_Sentence]] = {}
        for sentence in sentences:
            heading = sentence.passage.section
            if heading and self._words.found(words, self._words.words(heading)):
                sections.setdefault(heading, []).append(sentence)
        if len(sections) != 1:
            return []
        return next(iter(sections.values()))[:MAX_ASPECT_SENTENCES]

    def _statement(self, part: QuestionPart, words: set[str], sentences: list[_Sentence]) -> _Sentence | None:
        """The sentence that by itself holds most of the question's own words (the
        sentence alone, not its heading): at least two, one of them not a cue word of an
        aspect, and half of those the page has anywhere; else None."""
        content = {w for w in words if fold(w) not in part.cue_words}
        found_in = [(s, self._words.found(words, self._words.words(s.text))) for s in sentences]
        # Of the question's words those the page has at all: the citizen's other words
        # ("last week", "пока новую не сделали") cannot be in any sentence.
        known = set().union(*(found for _, found in found_in)) if found_in else set()
        best: tuple[int, _Sentence] | None = None
        for sentence, found in found_in:
            if len(found) < STATEMENT_WORDS or not (found & content):
                continue
            if len(found) < STATEMENT_SHARE * len(known):
                continue
            weight = sum(len(w) for w in found)
            if best is None or weight > best[0]:
                best = (weight, sentence)
        return best[1] if best else None

    def _related(self, words: set[str], sentences: Sequence[_Sentence]) -> bool:
        covered: set[str] = set()
        for sentence in sentences:
            covered |= self._found(words, sentence)
        return len(covered) >= min(RELATED_WORDS, len(words)) or len(covered) >= RELATED_SHARE * len(words)

    def _found(self, words: set[str], sentence: _Sentence) -> set[str]:
        """Those of `words` in the sentence or its section heading (the heading sums up
        its sentences: "Who needs a passport")."""
        return self._words.found(words, self._words.words(f"{sentence.text} {sentence.passage.section}"))

    def _score(
        self, aspect: Aspect, part: QuestionPart, own_words: set[str], sentence: _Sentence
    ) -> tuple[float, int]:
        """The aspect's evidence in the sentence, its heading naming the aspect, a heading
        naming another aspect the same clause asks ("what do I bring *when I pick it
        up*": the collecting section), and the question's own words in it (the page
        title's count half: every sentence of the page is about its topic)."""
        strength = evidence(aspect, sentence.text).strength
        named = heading_cues(sentence.passage.section)
        heading = aspect in named
        beside = any(other in named for other in part.aspects if other is not aspect)
        tail = {w for w in self._words.words(asked_tail(part.text)) if fold(w) not in part.cue_words}
        if tail:
            # After a leading situation ("after I send the notice, how long until the
            # municipality registers it"), the words of what is asked decide.
            words = len(self._found(tail, sentence)) + len(self._found(own_words - tail, sentence)) / 2
        else:
            # The title's words only break ties between sentences that say the aspect alike.
            topic = self._words.words(part.text) - own_words
            words = len(self._found(own_words, sentence)) + len(self._found(topic, sentence)) / 2
        return 3 * strength + 3 * heading + 2 * beside + words, strength

    def _add_focus(
        self, part: QuestionPart, own_words: set[str], sentences: list[_Sentence], result: _PartAnswer
    ) -> None:
        """A thing the question names that only a sentence or two of the page speak of
        ("where do I get the PIN codes": the sentence with the PIN codes) is what is asked,
        whatever sentence the aspect's question word ("where") found: it is added."""
        # Only where the aspect's own evidence did not answer: a question word's aspect, or
        # one the page does not say ("shorter by how much" is no price).
        if not set(part.aspects) <= _FOCUS_ANSWERS and not (result.uncovered or result.no_amount):
            return
        focus = {
            w
            for w in own_words
            if fold(w) not in part.cue_words and len(w) >= FOCUS_MIN_LETTERS and names_a_thing(w)
        }
        if not focus:
            return
        holding = {
            w: [s for s in sentences if self._words.found({w}, self._words.words(s.text))] for w in focus
        }
        rare = {w for w, found in holding.items() if 0 < len(found) <= FOCUS_MAX_SENTENCES}
        if not rare or any(self._words.found(rare, self._words.words(s.text)) for s in result.sentences):
            return
        best = max(
            (s for w in rare for s in holding[w]),
            key=lambda s: (len(self._words.found(rare, self._words.words(s.text))), -s.order[0], -s.order[1]),
        )
        result.sentences.append(best)
        result.uncovered = [a for a in result.uncovered if a not in _FOCUS_ANSWERS]

    def _answer_aspect(
        self,
        aspect: Aspect,
        part: QuestionPart,
        own_words: set[str],
        sentences: list[_Sentence],
        result: _PartAnswer,
    ) -> None:
        scored = sorted(
            ((self._score(aspect, part, own_words, s), s) for s in sentences),
            key=lambda item: (-item[0][0], item[1].order),
        )
        said = [
            (score, s)
            for (score, strength), s in scored
            if strength > 0 or aspect in heading_cues(s.passage.section)
        ]
        if not said:
            result.uncovered.append(aspect)
            return
        best_score, best = said[0]
        best_strength = evidence(aspect, best.text).strength
        if aspect is Aspect.ONLINE:
            restrictions = [s for s in sentences if in_person_only(s.text)]
            result.sentences += [best, *restrictions[:1]]
            return
        result.sentences.append(best)
        if aspect in (Aspect.TIME, Aspect.VALIDITY) and best_strength < 2:
            result.uncovered.append(aspect)
        same_section = [s for _, s in said[1:] if s.passage is best.passage]
        if aspect is Aspect.COST and not evidence(aspect, best.text).amount:
            # No amount: every place the page names a fee ("pay the state fee", "urgent
            # processing for an additional fee"), and that the amount is not given.
            result.no_amount = True
            result.sentences += [s for _, s in said[1:] if evidence(aspect, s.text).strength > 0][:1]
        elif aspect in _LISTING:
            extra = [s for s in same_section if evidence(aspect, s.text).strength > 0]
            if aspect is Aspect.DOCUMENTS:
                # What to bring is often spread over the page (a certificate in one
                # section, a photo and the fee in "How to apply"): every section's
                # sentence that names a thing to bring belongs to the list.
                extra += [
                    s
                    for _, s in said[1:]
                    if s.passage is not best.passage and evidence(aspect, s.text).strength == 2
                ]
            result.sentences += extra[: MAX_ASPECT_SENTENCES - 1]
        elif aspect is Aspect.TIME:
            # Two durations said about it (the citizen's deadline, the office's processing
            # time) both answer "how long"; then the statement's qualifier, if any.
            others = [
                s
                for score, s in said[1:]
                if score >= best_score - TIME_SCORE_MARGIN and evidence(aspect, s.text).strength == 2
            ]
            result.sentences += others[:1] or self._qualifier(aspect, best, same_section)
        else:
            result.sentences += self._qualifier(aspect, best, same_section)

    @staticmethod
    def _qualifier(aspect: Aspect, best: _Sentence, same_section: list[_Sentence]) -> list[_Sentence]:
        """A statement's qualifier: the next sentence when it speaks of the same aspect
        ("… within 30 days. If you need it faster, …")."""
        following = [s for s in same_section if s.order == (best.order[0], best.order[1] + 1)]
        return [s for s in following if evidence(aspect, s.text).strength > 0][:1]

    def _covering(self, words: set[str], sentences: list[_Sentence]) -> list[_Sentence]:
        """The fewest sentences that together contain most of `words` (greedy), in page order."""
        chosen: list[_Sentence] = []
        left = set(words)
        while left and len(chosen) < MAX_PLAIN_SENTENCES:
            best = max(
                sentences, key=lambda s: (len(self._found(left, s)), -s.order[0], -s.order[1]), default=None
            )
            if best is None:
                break
            gained = self._found(left, best)
            if not gained:
                break
            chosen.append(best)
            left -= gained
        return chosen

    def _verdict(
        self,
        part: QuestionPart,
        own_words: set[str],
        title_words: set[str],
        sentences: list[_Sentence],
        result: _PartAnswer,
    ) -> str | None:
        """Yes or no when the page settles the question, else None."""
        if Aspect.ONLINE in part.aspects:
            qualifiers = own_words - {w for w in own_words if fold(w) in part.cue_words}
            for sentence in sentences:
                if in_person_only(sentence.text) and self._found(qualifiers, sentence):
                    return "no"
            online = any(evidence(Aspect.ONLINE, s.text).strength == 2 for s in result.sentences)
            return "yes" if online else None
        if not result.sentences:
            return None
        # The sentence with the most of the question's words (longer words say more than
        # short ones: "ravikindlustus" over "saab") decides.
        # "Do I have to bring the paper?": a sentence saying the act asked about ("… so
        # you do not have to bring a paper copy") decides before one with more of the
        # question's other words (the office's name).
        # The page's own topic ("нужен ли паспорт" on the passport page) is no act.
        act = {
            w
            for w in self._words.words(" ".join(necessary_act(part.text)))
            if len(w) > ACT_MIN_LETTERS and not self._words.match(w, title_words)
        }
        saying_act = [
            s for s in result.sentences if act and self._words.found(act, self._words.words(s.text))
        ]
        deciding = max(
            saying_act or result.sentences,
            key=lambda s: (sum(len(w) for w in self._found(own_words, s)), -s.order[0], -s.order[1]),
        )
        if Aspect.AFTER in part.aspects and automatic(deciding.text):
            return "no"
        # "Do I need a passport (or is the ID card fine)?" — "Inside the EU you can travel
        # with your ID card": a sentence that permits it with another thing the question
        # names, and without the thing asked about (the page's topic), says it is not needed.
        if asks_necessity(part.text) and permissive(deciding.text) and not negated(deciding.text):
            needed = {w for w in self._words.words(part.text) if self._words.match(w, title_words)}
            said = self._words.words(deciding.text)
            if needed and not self._words.found(needed, said) and self._words.found(own_words, said):
                return "no"
        # The page saying back the very word the question asks with ("can it be done
        # faster?" — "if you need it faster, …") relates the sentence as well.
        asked_with = {w for w in own_words if fold(w) in part.cue_words}
        if not self._related(own_words - title_words, result.sentences) and not self._found(
            asked_with, deciding
        ):
            return None
        # "Is a passport needed, or does the ID card do?" offers two answers, not yes or no.
        if _ALTERNATIVE.search(fold(part.text)):
            return None
        return "no" if negated(deciding.text) else "yes"

    # --- the whole answer ----------------------------------------------------------

    def _compose(self, answers: list[tuple[QuestionPart, _PartAnswer]], lang: Lang) -> ExtractiveAnswer:
        pages: dict[str, list[_PartAnswer]] = {}
        for _, answer in answers:
            pages.setdefault(page_of(answer.page[0]), []).append(answer)
        verdicts = [a.verdict for _, a in answers if a.verdict]
        blocks: list[str] = []
        used: list[Passage] = []
        uncovered: list[Aspect] = []
        several = len(pages) > 1
        for page_answers in pages.values():
            first = page_answers[0].page[0]
            page_lang = parse_lang(first.language) or lang
            sentences = sorted(
                dict.fromkeys(s for a in page_answers for s in a.sentences), key=lambda s: s.order
            )
            lines: list[str] = []
            if page_lang != lang:
                lines.append(_OTHER_LANGUAGE[lang])
            # Counts in digits ("within 10 working days"): what a citizen scans for.
            quoted = with_digits(" ".join(s.text for s in sentences), page_lang)
            if quoted:
                lead = f"{_QUOTE[lang].format(first.title)}: " if several else ""
                lines.append(lead + quoted)
            notes: list[str] = []
            for answer in page_answers:
                for aspect in answer.uncovered:
                    if aspect not in uncovered:
                        uncovered.append(aspect)
                        notes.append(_NOT_SAID[lang].format(what=_WHAT[aspect][lang]))
                if answer.no_amount and Aspect.COST not in uncovered:
                    uncovered.append(Aspect.COST)
                    notes.append(_NO_AMOUNT[lang])
                if answer.unanswered:
                    sections = "; ".join(dict.fromkeys(p.section for p in answer.page if p.section))
                    notes.append(
                        _NOT_ANSWERED[lang].format(title=first.title, sections=sections or first.title)
                    )
            if notes:
                lines.append(" ".join(notes))
            lines.append(f"{_SOURCE[lang]}: {_QUOTE[lang].format(first.title)} — {first.url}".rstrip(" —"))
            blocks.append("\n\n".join(lines))
            used += [s.passage for s in sentences] or page_answers[0].page[:1]
        verdict = verdicts[0] if verdicts and len(set(verdicts)) == 1 else None
        text = "\n\n".join(blocks)
        if verdict:
            text = f"{(_YES if verdict == 'yes' else _NO)[lang]} {text}"
        return ExtractiveAnswer(text, list(dict.fromkeys(used)), tuple(uncovered), verdict)


def _preferred(passages: Sequence[Passage], lang: Lang) -> list[Passage]:
    return [p for p in passages if p.language == lang] or list(passages)
