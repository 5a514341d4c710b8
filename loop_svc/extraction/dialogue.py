"""Parameter values over a whole conversation: every user message is read in
order, with what the assistant's message just before it asked for, and later
values overwrite earlier ones (corrections win).

The loop uses this for the first message of a session that arrives with a
conversation history, and bench/eval_slots.py runs SGD dialogues through it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from loop_svc.extraction.spans import name_spans
from loop_svc.schema import Concept, ParamSpec
from services.language import Lang

# Name words too generic to say which parameter a question is about.
_GENERIC = frozenset(
    {"the", "of", "for", "and", "name", "number", "type", "is", "to", "in", "at", "id", "value", "code"}
    | {"info"}
)
_WORD = re.compile(r"[^\W\d_]+")
_FROM_CUES = frozenset({"from", "leaving", "departing", "depart", "leave", "start", "pick", "kust", "откуда"})
_TO_CUES = frozenset({"to", "going", "headed", "heading", "destination", "travel", "visit", "kuhu", "куда"})


class ParamExtractor(Protocol):
    """Values for `params` found in one message (rules, or rules then a model)."""

    def extract(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        language: Lang,
        asked: Sequence[str] = (),
        known: Mapping[str, str] | None = None,
    ) -> dict[str, str]: ...


@dataclass(frozen=True)
class Message:
    role: str
    content: str


def asked_in(text: str, params: Sequence[ParamSpec]) -> list[str]:
    """The parameters an assistant question is about: those with a distinctive
    name word in the question ("Which city?" → city_of_event). Only questions ask."""
    if "?" not in text:
        return []
    lowered = {w.lower() for w in _WORD.findall(text)}
    stems = {w[:5] for w in lowered if len(w) >= 5}
    asked = []
    for param in params:
        words = [w for w in param.words if w not in _GENERIC and len(w) >= 3]
        if any(w in lowered or (len(w) >= 5 and w[:5] in stems) for w in words):
            asked.append(param.name)
    if not asked and lowered & {"where", "kus", "kuhu", "kust", "где", "куда", "откуда"}:
        # "Where are you leaving from?" / "Where to?": the place of that role.
        role = "from" if lowered & _FROM_CUES else "to" if lowered & _TO_CUES else None
        places = [p for p in params if p.concept is Concept.PLACE]
        asked = [p.name for p in places if p.place_role == role] or [p.name for p in places[:1]]
    return asked


# An assistant message that proposes something ("How about Qimura Sushi & Ramen in Windsor?").
_OFFER = re.compile(
    r"\b(?:how about|what about|what of|there is|there's|i found|i recommend|i suggest|you might like|"
    r"would you like|called|is playing|is showing|available|confirm|is that (?:right|correct|ok)|"
    r"does that sound|departs|leaves|leaving at|correct\?|right\?|will (?:your|it|that) be|"
    r"are you going to|you(?:'re| are) going to)",
    re.I,
)
# "get me a cab there", "a hotel room there": the place the conversation last named.
_THERE = re.compile(r"\b(?:there|that place|that address)\b", re.I)
# A user message that takes it ("Sure, that sounds good", "Yes, book it").
_ACCEPT = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|sure|ok|okay|great|perfect|good|fine|cool|awesome|excellent|"
    r"that (?:sounds|works|is|one|would)|sounds|it sounds|i like|i'd like|i would like|let's|lets|book|"
    r"please|that's|thats)\b",
    re.I,
)
_DECLINE = re.compile(r"\b(?:no|not|don't|dont|else|other|another|different|nope)\b", re.I)
_NAME_WORDS = frozenset({"name", "title", "event", "destination", "attraction", "song", "movie", "track"})


def accepts_offer(text: str) -> bool:
    return bool(_ACCEPT.search(text)) and not _DECLINE.search(text)


def track(
    messages: Sequence[Message],
    params: Sequence[ParamSpec],
    extractor: ParamExtractor,
    *,
    language: Lang,
    known: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The values the user messages state, in order, later ones winning."""
    state: dict[str, str] = dict(known or {})
    asked: list[str] = []
    offer: str | None = None
    named: str | None = None  # the last thing the conversation named (for "there")
    for message in messages:
        if message.role == "assistant":
            asked = asked_in(message.content, params)
            offer = message.content if _OFFER.search(message.content) else None
            if offer is not None:
                cue = _OFFER.search(offer)
                spans = name_spans(offer[cue.end() :] if cue is not None else offer)
                named = spans[0].value if spans else named
            continue
        if message.role != "user" or not message.content.strip():
            continue
        destination = _there(message.content, params, state, named)
        if destination:
            state.update(destination)
        if offer is not None and accepts_offer(message.content):
            state.update(_offered(offer, params, extractor, language, state))
        elif offer is not None and not _DECLINE.search(message.content):
            # Asking about the offer ("What time does it start?") keeps the offered thing
            # and the kind of thing it is (an airline, a car type: allowed values).
            kinds = [
                p
                for p in params
                if p.concept is Concept.ENUM and p.name not in state and not all(v.isdigit() for v in p.enum)
            ]
            if kinds:
                state.update(extractor.extract(offer, kinds, language=language, known=state))
            state.update(_offered_name(offer, params, state))
        state.update(extractor.extract(message.content, params, language=language, asked=asked, known=state))
        asked = []
        offer = None
    return state


def _there(
    text: str, params: Sequence[ParamSpec], state: Mapping[str, str], named: str | None
) -> dict[str, str]:
    """ "Get me a cab there": the missing destination-like place is the last thing named."""
    if named is None or not _THERE.search(text):
        return {}
    places = [p for p in params if p.concept is Concept.PLACE and p.name not in state]
    going = [p for p in places if p.place_role == "to"] or [p for p in places if p.place_role is None]
    return {going[0].name: named} if going else {}


def _offered(
    offer: str,
    params: Sequence[ParamSpec],
    extractor: ParamExtractor,
    language: Lang,
    state: Mapping[str, str],
) -> dict[str, str]:
    """What an accepted offer names: its values, and its first name for the
    parameter that holds the offered thing (restaurant_name, title, event_name...)."""
    # An offer's venue ("at Alamo Drafthouse") is not the city the user asked about:
    # cities the conversation already settled stay. A location ("Location of rental car
    # pickup") is what the accepted offer names ("pickup at KLIA International Airport").
    places = {
        p.name
        for p in params
        if p.concept is Concept.PLACE and ("city" in p.words or "city" in p.description.lower())
    }
    values = {
        k: v
        for k, v in extractor.extract(offer, params, language=language, known=state).items()
        if not (k in places and k in state)
    }
    return {**values, **_offered_name(offer, params, values)}


def _offered_name(offer: str, params: Sequence[ParamSpec], have: Mapping[str, str]) -> dict[str, str]:
    """The first name after the offer's cue, for the parameter that holds the offered thing."""
    named = [p for p in params if set(p.words) & _NAME_WORDS and p.name not in have]
    if not named:
        return {}
    cue = _OFFER.search(offer)
    after = offer[cue.end() :] if cue is not None else offer
    # A work by its author ("Let it be by Eurielle", "pour it up by rihanna"): the title is
    # everything from its first capital (or the cue, written in lower case) to "by".
    capital = next(
        (
            m
            for m in re.finditer(r"\b[A-Z]\w*", after)
            if m.group(0) != "I" and not _opens_sentence(after, m.start())
        ),
        None,
    )
    work = _WORK_BY.match(after[capital.start() :] if capital else after.lstrip())
    if work is not None and len(work.group(1).split()) <= _MAX_TITLE_WORDS:
        return {named[0].name: work.group(1).strip()}
    spans = name_spans(after)
    return {named[0].name: spans[0].value} if spans else {}


def _opens_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return bool(before) and before[-1] in ".!?"


_WORK_BY = re.compile(r"([^,.;:!?]+?)\s+by\s+\S", re.I)
_MAX_TITLE_WORDS = 8
