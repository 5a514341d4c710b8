"""The turn state machine: one user message in, one plain result out.

    new turn ──extract──▶ all required values? ──yes──▶ Complete (no session kept)
                              │ no
                              ▼
              turn_count ≥ max_turns ──▶ Abandoned (session dropped)
              turn_count = continuation_turn ──▶ NeedsInput(continuation), AWAITING_CONTINUATION
              otherwise ──▶ NeedsInput(clarifying question for everything missing)

    AWAITING_CONTINUATION: a yes-reply goes back to collecting (the reply is
    still read for values); anything else → Abandoned.

Values are extracted from every message and overwrite earlier ones, so a
correction ("No, Latvia") wins. No I/O here: the caller loads and saves.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from loop_svc import questions
from loop_svc.constraints import beyond_horizon, clamp, reads_back, too_long
from loop_svc.defaults import Defaults
from loop_svc.extraction.dialogue import Message, ParamExtractor, track
from loop_svc.extraction.periods import past_tense, read_as_past
from loop_svc.extraction.values import wants_out, yes_no
from loop_svc.parts import values_by_part
from loop_svc.schema import EndpointSpec, ParamSpec
from loop_svc.session import Session, SessionState
from services.language import Lang

# How far back a new session reads the conversation for values.
HISTORY_MESSAGES = 6
# A question said in the future tense asks ahead: its days are not read again as past ones.
_FUTURE = re.compile(r"(?<!\w)(?:will|going to|gonna|hakkab|saab olema|будет|будут|станет)(?!\w)", re.I)


@dataclass(frozen=True)
class NeedsInput:
    question: str
    missing: list[str]
    endpoint_names: list[str]
    continuation: bool = False


@dataclass(frozen=True)
class PlannedCall:
    endpoint: EndpointSpec
    params: dict[str, str]


@dataclass(frozen=True)
class Complete:
    calls: list[PlannedCall]
    # Said before the answer: a value brought into the documented range ("at most 100").
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Abandoned:
    """The loop gives up; the classifier answers the original query from the knowledge base."""

    reason: Literal["declined", "out_of_turns", "cancelled"]
    # What to say when the citizen ended it ("OK, stopped."): no knowledge-base fallback then.
    reply: str = ""


TurnResult = NeedsInput | Complete | Abandoned


@dataclass
class Step:
    result: TurnResult
    # The session to keep, or None when it must be deleted.
    session: Session | None
    language: Lang
    original_query: str
    llm_calls: int = 0
    extracted: dict[str, str] = field(default_factory=dict)
    # The session that just completed (deleted from the store), for a re-ask on a 4xx.
    finished: Session | None = None


@dataclass(frozen=True)
class TurnLimits:
    max_turns: int = 5
    continuation_turn: int = 3
    # Several endpoints get 3 turns each, up to this cap.
    multi_max_turns_cap: int = 9
    # A multi-intent session asks whether to go on at this turn (the seed's fixed
    # MULTI_INTENT_CONTINUATION_TURN): it has more to collect than one endpoint.
    multi_continuation_turn: int = 4
    # At most this many calls for the values listed for one parameter ("A, B and C").
    max_alternatives: int = 3

    def continuation_turn_for(self, endpoint_count: int) -> int:
        return self.continuation_turn if endpoint_count <= 1 else self.multi_continuation_turn

    def max_turns_for(self, endpoint_count: int) -> int:
        if endpoint_count <= 1:
            return self.max_turns
        return min(3 * endpoint_count, self.multi_max_turns_cap)


class TurnLoop:
    def __init__(
        self,
        extractor: ParamExtractor,
        limits: TurnLimits | None = None,
        defaults: Defaults | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self._extractor = extractor
        self._limits = limits or TurnLimits()
        self._defaults = defaults
        # The citizen's aware local time: which days' values exist yet (constraints.beyond_horizon).
        self._now = now

    def new_session(
        self,
        chat_id: str,
        endpoints: list[EndpointSpec],
        *,
        language: Lang,
        original_query: str,
        owner_id: str = "",
    ) -> Session:
        return Session(
            chat_id=chat_id,
            owner_id=owner_id,
            endpoints=endpoints,
            max_turns=self._limits.max_turns_for(len(endpoints)),
            continuation_turn=self._limits.continuation_turn_for(len(endpoints)),
            language=language,
            original_query=original_query,
        )

    def _extract(
        self, session: Session, message: str, history: str, params: Sequence[ParamSpec] | None = None
    ) -> tuple[dict[str, str], int]:
        """Values in the message (and, for a model, the history), and the model calls it took."""
        params = session.params if params is None else params
        counting = getattr(self._extractor, "extract_with_calls", None)
        kwargs = {"language": session.language, "asked": session.asked, "known": session.known}
        if counting is not None:
            values, calls = counting(message, params, history=history, **kwargs)
            return dict(values), int(calls)
        return self._extractor.extract(message, params, **kwargs), 0  # type: ignore[arg-type]

    def _extract_by_part(
        self, session: Session, message: str, history: str
    ) -> tuple[dict[str, str], int] | None:
        """The first turn of a message split into several requests: each endpoint's values
        from its own part (loop_svc.parts), applied to that endpoint only; None otherwise."""
        if session.turn_count != 1 or not session.parts or message.strip() != session.original_query:
            return None
        per_endpoint, calls = values_by_part(
            session.endpoints,
            session.parts,
            message,
            lambda text, params: self._extract(session, text, history, params),
        )
        merged: dict[str, str] = {}
        for name, values in per_endpoint.items():
            session.apply_to(name, values)
            merged.update(values)
        return merged, calls

    def seed_from_history(self, session: Session, history: Sequence[tuple[str, str]]) -> Session:
        """A new session with the values the conversation so far states (the last
        `HISTORY_MESSAGES` messages, read in order, later ones winning)."""
        seeded = session.model_copy(deep=True)
        recent = [Message(role, text) for role, text in history[-HISTORY_MESSAGES:]]
        seeded.apply(track(recent, seeded.params, self._extractor, language=seeded.language))
        return seeded

    def advance(self, session: Session, message: str, history: str = "") -> Step:
        session = session.model_copy(deep=True)
        session.turn_count += 1
        lang = session.language

        llm_calls = 0

        def done(result: TurnResult, keep: Session | None, extracted: dict[str, str]) -> Step:
            return Step(result, keep, lang, session.original_query, llm_calls, extracted)

        if session.state is SessionState.AWAITING_CONTINUATION:
            if yes_no(message) is not True:
                return done(Abandoned("declined"), None, {})
            session.state = SessionState.COLLECTING_PARAMS

        offered, session.offered = session.offered, {}
        by_part = self._extract_by_part(session, message, history)
        if by_part is not None:
            extracted, llm_calls = by_part  # applied per endpoint already
        else:
            extracted, llm_calls = self._extract(session, message, history)
            if offered and not extracted and yes_no(message) is True:
                extracted = dict(offered)  # "yes" to the nearest period offered
            if session.turn_count > 1 and not extracted and wants_out(message):
                # "no", "cancel", "something else": the pending question is dropped, not repeated.
                return done(Abandoned("cancelled", questions.CANCELLED[lang]), None, {})
            session.apply(extracted)
        if self._defaults is not None:
            session.apply(self._defaults.fill(session.params, session.known, past=past_tense(message)))
        missing = session.missing()
        notes: list[str] = []
        read_back = False  # the message's days were read again as past ones
        beyond = (
            beyond_horizon(session.params, session.known, self._now()) if not missing and self._now else None
        )
        if beyond is not None and beyond.wholly and not _FUTURE.search(message):
            # Past the last day values exist for ("the whole of October" read as next year's,
            # "esmaspäeva ja teisipäeva keskmine" as next week's): a bare month or weekday
            # there means the last one, when that is served; one said ahead ("this
            # Saturday", "next Wednesday") or in the future tense stays, and is explained.
            assert self._now is not None
            with read_as_past():
                again, _ = self._extract(session, message, history)
            if again and reads_back(session.params, {**session.known, **again}, self._now()):
                session.apply(again)
                extracted = {**extracted, **again}
                beyond = None
                read_back = True
        if beyond is not None and beyond.wholly:
            # Asked past the last day values exist for: say how far they go, offer that day.
            for values in session.collected.values():
                for name in beyond.offer:
                    values.pop(name, None)
            session.offered = beyond.offer
            session.asked = list(beyond.offer)
            text = questions.not_yet(beyond.last_day, beyond.ahead, beyond.first, lang)
            return done(NeedsInput(text, list(beyond.offer), session.endpoints_missing()), session, extracted)
        long = too_long(session.params, session.known) if not missing else None
        if beyond is not None and long is None:
            # Runs past it: cut at that day, and said before the answer (a period longer
            # than the API serves is explained first: its offer is then cut in turn).
            session.apply(beyond.offer)
            notes.append(questions.cut_at(beyond.last_day, beyond.ahead, lang))
        if long is not None:
            # More than the API serves: say so and offer the nearest period, never the ISO question.
            for values in session.collected.values():
                for name in long.offer:
                    values.pop(name, None)
            session.offered = long.offer
            session.asked = list(long.offer)
            text = questions.too_long(long.limit_days, long.first, long.last, lang)
            return done(NeedsInput(text, list(long.offer), session.endpoints_missing()), session, extracted)
        if not missing:
            for clamped in clamp(session.params, session.known):
                session.apply({clamped.param.name: clamped.used})
                notes.append(questions.clamped(clamped.param, clamped.given, clamped.low, clamped.high, lang))
            with read_as_past() if read_back else contextlib.nullcontext():
                # Values listed in the message are read the way its period was.
                calls = self._planned(session, message)
            step = done(Complete(calls, notes), None, extracted)
            step.finished = session
            return step
        if session.turn_count >= session.max_turns:
            return done(Abandoned("out_of_turns"), None, extracted)

        names = [p.name for p in missing]
        if session.turn_count == session.continuation_turn:
            session.state = SessionState.AWAITING_CONTINUATION
            session.asked = []
            question = NeedsInput(questions.CONTINUATION[lang], names, session.endpoints_missing(), True)
            return done(question, session, extracted)
        session.asked = names
        problems = self._problems(session, message, extracted, missing)
        text = questions.clarifying_question(missing, lang)
        if problems:
            text = questions.invalid_values(problems, lang) + " " + text
        question = NeedsInput(text, names, session.endpoints_missing())
        return done(question, session, extracted)

    def _planned(self, session: Session, message: str) -> list[PlannedCall]:
        """One call per endpoint, or one per value when the message lists several values of
        one of its parameters ("holidays in Finland and Latvia", "tax for 123ABC or
        777XYZ"): each value gets its own call and its own labelled answer."""
        finder = getattr(self._extractor, "alternatives", None)
        calls: list[PlannedCall] = []
        for endpoint in session.endpoints:
            params = dict(session.collected.get(endpoint.name, {}))
            options: dict[str, list[str]] = {}
            if finder is not None:
                first_turn = session.turn_count == 1 and message.strip() == session.original_query
                text = (session.parts.get(endpoint.name) if first_turn else None) or message
                options = finder(text, endpoint.params, values=params, language=session.language)
            if not options:
                calls.append(PlannedCall(endpoint, params))
                continue
            # One parameter's values (or a start/end pair's, in step): never a product.
            count = min(min(len(v) for v in options.values()), self._limits.max_alternatives)
            for i in range(count):
                calls.append(PlannedCall(endpoint, {**params, **{name: v[i] for name, v in options.items()}}))
        return calls

    def _problems(
        self, session: Session, message: str, extracted: dict[str, str], missing: list[ParamSpec]
    ) -> list[tuple[ParamSpec, str]]:
        """Values the message tried to give in a form the parameter cannot take."""
        finder = getattr(self._extractor, "problems", None)
        if finder is None:
            return []
        asked = list(session.asked) if session.turn_count > 1 else []
        found = finder(message, missing, values=extracted, asked=asked)
        return [(p, found[p.name]) for p in missing if p.name in found]
