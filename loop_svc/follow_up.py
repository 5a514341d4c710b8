"""How a new message relates to the chat's last API call (seed Part 8,
FollowUpDetectorModule), decided by rules when no LLM is configured:

- a question about the listed items ("Which of those…", "Millised neist…", "Какие из
  них…") → RESPONSE_QUESTION: answered from the stored response, no API call;
- a short or "and/same for/what about" message that gives a new value for a
  parameter of the last call ("And in Finland?", "Same for Latvia?", "A mis homme?",
  "А в Латвии?") → PARAM_UPDATE with the changed values;
- anything else → NEW_INTENT.

- a short message that asks something of the rows shown (a filter, a selection, an
  aggregate: "only the hours under 35", "and the most expensive?", "how many is that
  altogether") or names a field of them ("what is its co2 and weight") →
  RESPONSE_QUESTION too; caller_svc answers it from the stored response by its shape.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from loop_svc.cache import LastCallContext
from loop_svc.extraction.addresses import INTERJECTION, corrected_town, with_town
from loop_svc.extraction.text import words
from loop_svc.loop import ParamExtractor
from loop_svc.schema import Concept, ParamSpec
from loop_svc.shapes import WEEKDAY_ASKED, ShapeReader
from services.answer_shape import AnswerShape, Comparison, DateRange, Hours, Months, Order, Weekdays
from services.field_terms import fold, matches_any, same_as_any, says_outcome, split_words
from services.language import Lang
from services.result_sketch import ResultSketch
from services.text import STOPWORDS


class FollowUpKind(StrEnum):
    NEW_INTENT = "new_intent"
    RESPONSE_QUESTION = "response_question"
    PARAM_UPDATE = "param_update"


@dataclass(frozen=True)
class FollowUp:
    kind: FollowUpKind
    context: LastCallContext | None = None
    updated_params: dict[str, str] = field(default_factory=dict)


class FollowUpDetector(Protocol):
    def detect(self, message: str, contexts: Sequence[LastCallContext], language: Lang) -> FollowUp: ...


_ABOUT_RESULT = re.compile(
    r"\b(?:which|what|how many|when|is|are)\b.*\b(?:of (?:those|these|them)|among (?:those|them)|"
    r"those|these|them|the list|that list|one of)\b"
    r"|\b(?:neist|nendest|nende seast|millised neist|mis neist|kumb|loetelus|seal hulgas)\b"
    r"|(?:из них|из этих|среди них|какой из|какие из|которы\w+ из|в этом списке)",
    re.I,
)
_FOLLOW_CUE = re.compile(
    r"^\W*(?:and|also|same|what about|how about|now|then|ok(?:ay)?,? (?:and|now)|aga|ja|a|ka|sama|"
    r"kuidas on|а|и|тоже|также|то же|а как|теперь)\b",
    re.I,
)
# A correction of the last request ("oops, wrong number, it is 101EES", "sorry i meant
# latvia", "ei, ma mõtlesin tänavust", "ой нет, я имела в виду 2028"): like "and …", it
# makes a message of any length a candidate for new values of the last call's parameters.
_CORRECTION = re.compile(
    rf"^\W*(?:{INTERJECTION}\W+)?(?:sorry|no|nope|oops|actually|rather|wait|{INTERJECTION}|ei|oot|oota|"
    r"vabandust|vabandage|sorri|tegelikult|pigem|ой|нет|не|извини\w*|простите|точнее)\b"
    r"|\b(?:(?:i )?meant|i mean|i was asking about|wrong (?:number|plate|one|address|year)|not that one|"
    r"mõtlesin|mõtlen|pidasin silmas|küsisin|vale (?:number|aadress|aasta)|"
    r"имел\w* в виду|имею в виду|я про|спрашивал\w*|не тот|не та|перепутал\w*|ошибся|ошиблась)\b",
    re.I,
)
# A short question back at the last answer: why it is so ("why is it less?", "miks nii
# väike?", "почему так мало?"), answered from what that result says.
_WHY = re.compile(
    r"^\W*(?:(?:and|but|so|ok|aga|ja|a|а|и|но|ну)\W+)?(?:why|how come|miks|mispärast|почему|отчего|с чего)\b",
    re.I,
)
# Words that point back at the last answer's subject ("what did it cost in 2024", "mis see
# maksis 2024", "сколько он стоил в 2024"): a new value said of it is a new value of that call.
_BACK_REFERENCE = re.compile(
    r"\b(?:it|its|that|this|the same|see|seda|selle|sellel|selle eest|sama|"
    r"это|этот|эта|он|она|оно|его|её|ее|него|неё)\b",
    re.I,
)
_SHORT_WORDS = 5
# A question about the rows shown is short ("only the hours under 35 pls", "mitu neist on
# nädalavahetusel?"); a longer one is a new question even when it has a superlative.
_ROW_QUESTION_WORDS = 8


class RuleFollowUpDetector:
    def __init__(self, extractor: ParamExtractor, shapes: ShapeReader | None = None) -> None:
        self._extractor = extractor
        self._shapes = shapes

    def detect(self, message: str, contexts: Sequence[LastCallContext], language: Lang) -> FollowUp:
        text = message.strip()
        if not text or not contexts:
            return FollowUp(FollowUpKind.NEW_INTENT)
        if _ABOUT_RESULT.search(text):
            return FollowUp(FollowUpKind.RESPONSE_QUESTION, about(text, contexts))
        count = len(words(text))
        cued = bool(_FOLLOW_CUE.search(text) or _CORRECTION.search(text))
        pointed = count <= _ROW_QUESTION_WORDS and bool(_BACK_REFERENCE.search(text))
        if cued or pointed or count <= _SHORT_WORDS:
            restated: FollowUp | None = None
            for context in contexts:
                params: list[ParamSpec] = context.endpoint.params
                found = self._extractor.extract(
                    text, params, language=language, known=context.collected_params
                )
                changed = {k: v for k, v in found.items() if context.collected_params.get(k) != v}
                if changed:
                    return FollowUp(FollowUpKind.PARAM_UPDATE, context, changed)
                counts = {p.name for p in params if p.type == "integer"}
                if found and restated is None and set(found) <= counts:
                    restated = FollowUp(FollowUpKind.PARAM_UPDATE, context, dict(found))
            if restated is not None and count <= _SHORT_WORDS:
                # "ok 100 then" after "the 150 latest" was answered with 100: the count the
                # call already has, asked again — the same call, not a new question ("same
                # for Estonia?" after Estonia's stays a question of its own).
                return restated
        if cued:
            moved = _town_moved(text, contexts, language)
            if moved is not None:
                return moved
        if count <= _ROW_QUESTION_WORDS and _WHY.search(text):
            return FollowUp(FollowUpKind.RESPONSE_QUESTION, about(text, contexts))
        if count <= _ROW_QUESTION_WORDS and WEEKDAY_ASKED.search(fold(text)):
            # "mis nädalapäev see on?": the weekday of the row(s) just shown.
            dated = [c for c in contexts if c.sketch.has_days]
            if dated:
                return FollowUp(FollowUpKind.RESPONSE_QUESTION, about(text, dated))
        if self._shapes is not None and (cued or count <= _ROW_QUESTION_WORDS):
            shape = self._shapes.read(text, language)
            fitting = [
                c
                for c in contexts
                if asks_rows(shape, c.sketch)
                or names_fields(shape.terms, c)
                or names_rows(shape.terms, c.sketch, by_text=cued or count <= _SHORT_WORDS)
            ]
            if fitting:
                return FollowUp(FollowUpKind.RESPONSE_QUESTION, about(text, fitting))
        return FollowUp(FollowUpKind.NEW_INTENT)


def _town_moved(text: str, contexts: Sequence[LastCallContext], language: Lang) -> FollowUp | None:
    """A correction that names only a town ("sorry, meant tartu", "ei mõtlesin tartus",
    "ааа я перепутал, в тарту конечно", "and in Pärnu?"): the same street and house
    number in that town, for the last call that looked an address up."""
    rest = _CORRECTION.sub(" ", _FOLLOW_CUE.sub(" ", text))
    town = corrected_town(rest, language)
    if town is None:
        return None
    for context in contexts:
        for param in context.endpoint.params:
            known = context.collected_params.get(param.name)
            if param.concept is not Concept.ADDRESS or not known:
                continue
            moved = with_town(known, town)
            if moved is not None and moved != known:
                return FollowUp(FollowUpKind.PARAM_UPDATE, context, {param.name: moved})
    return None


def context_words(context: LastCallContext, *, with_question: bool = True) -> set[str]:
    """Words that say what a last call was about: its endpoint's name, description and
    labels, its parameters' descriptions, its rows' keys and (`with_question`) the
    question that made it."""
    payload = context.endpoint.payload
    texts = [
        context.api_name.replace("_", " "),
        str(payload.get("description", "")),
        context.original_query if with_question else "",
        *(p.description for p in context.endpoint.params),
        *(str(t) for t in (payload.get("answer_titles") or payload.get("answerTitles") or {}).values()),
    ]
    for label in payload.get("response_labels", payload.get("responseLabels", [])) or []:
        texts.extend(str(t) for t in (label.get("labels") or {}).values())
    texts.extend(context.sketch.keys)
    found = {fold(w) for text in texts for w in split_words(text)}
    return {w for w in found if len(w) >= 3 and w not in STOPWORDS}


def about(message: str, contexts: Sequence[LastCallContext]) -> LastCallContext:
    """Of several last calls (a two-part question was answered), the one the message
    speaks of — the one sharing the most words with it that the others do not have (not
    counting the question that made them: one question made them all); the first on a tie. "Which of those
    taxes …" after an address and a vehicle tax is the tax's."""
    if len(contexts) == 1:
        return contexts[0]
    said = [fold(t) for t in split_words(message) if len(t) >= 3 and t.lower() not in STOPWORDS]
    known = [context_words(c, with_question=False) for c in contexts]
    common = set.intersection(*known)
    scores = [sum(1 for word in said if matches_any(word, words - common)) for words in known]
    best = max(range(len(contexts)), key=lambda i: scores[i])
    return contexts[best] if scores[best] > scores[0] else contexts[0]


def asks_rows(shape: AnswerShape, sketch: ResultSketch) -> bool:
    """Whether the message asks something the last response can answer by itself:
    a selection or aggregate over numbers or times it has, or a filter by what its
    rows carry (days for a weekday or month, clock times for hours, numbers for a
    comparison)."""
    numbers, days, instants = sketch.has_numbers, sketch.has_days, sketch.has_times
    for row_filter in shape.filters:
        condition = row_filter.condition
        if isinstance(condition, Comparison) and numbers:
            return True
        if isinstance(condition, Hours) and instants:
            return True
        if isinstance(condition, Weekdays | Months) and days:
            return True
        # "only the ones still ahead", "the ones already over": an open span from today is
        # a filter of the rows' own dates (a closed one, "tomorrow", is a new period).
        if isinstance(condition, DateRange) and days and (condition.start is None or condition.end is None):
            return True
    if shape.selection is not None:
        order = shape.selection.order
        if order in (Order.LOWEST, Order.HIGHEST) and numbers:
            return True
        if order not in (Order.LOWEST, Order.HIGHEST) and (days or order is Order.FIRST):
            return True
    if shape.aggregation is not None:
        return numbers or days or sketch.is_list
    return False


def names_rows(terms: Sequence[str], sketch: ResultSketch, *, by_text: bool = True) -> bool:
    """Whether the message's words pick some of the rows shown, not all: a word of some
    rows' texts ("and the climate bill?", "ja relvaseadus?"), or how a decision ended when
    the rows carry a yes/no flag ("only the ones that failed", "ainult need mis läbi ei
    läinud", "какие не приняли"). `by_text` off: only by how they ended (a longer message
    that shares a title's word, "what is the vehicle tax for 123ABC", is a new question)."""
    rows = sketch.rows
    if len(rows) < 2:
        return False
    flagged = any(r.has_flag for r in rows)
    if flagged and any(says_outcome(t) for t in terms):
        return True
    if not by_text:
        return False
    texts = [r.words for r in rows]
    for term in terms:
        if len(term) < 4 or term.isdigit() or term in STOPWORDS:
            continue
        having = sum(1 for words in texts if same_as_any(fold(term), words))
        if 0 < having < len(rows):
            return True
    return False


def names_fields(terms: Sequence[str], context: LastCallContext) -> bool:
    """Whether a word of the message names a field of the last response (its key or
    the endpoint's label for it in any language): "what is its co2 and weight"."""
    field_words: set[str] = set()
    for key in context.sketch.keys:
        field_words.update(split_words(key))
    for label in context.endpoint.payload.get("response_labels", []) or []:
        for text in (label.get("labels") or {}).values():
            field_words.update(split_words(str(text)))
    field_words = {w for w in field_words if len(w) >= 3 and w not in STOPWORDS}
    return any(matches_any(fold(t), field_words) for t in terms if len(t) >= 3)
