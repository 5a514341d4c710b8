"""The API_TOOL_CALLING layer: which catalogue endpoint(s) answer a message, and whether
a message inside an active session switches to another endpoint.

The router asks this module two questions (`match` and `switch_target`); how they are
answered (search, calibrated scoring and rejection, affirmations of the assistant's
last offer, the disambiguator and the multi-intent split) lives here.

Flow of `match` (seed API_TOOL_CALLING.md Part 2 and Part 7 Phase 1):
1. whole-message small talk ("What can you do?") is never an API request — unless the
   catalogue itself registers it (`claim`: a catalogue with a "thank you" endpoint);
2. search once, score on the calibrated scale (classifier_svc/api_matcher.py); a near
   tie is broken by what the conversation was about (its API), or with no conversation
   by looking up before acting;
3. close candidates → EndpointDisambiguator (LLM, when configured) picks one
   (`llm_validated`) or none; on failure the deterministic best stands;
4. not a clear match (or a conjunction in the message) → IntentDecomposer (LLM) or the
   deterministic conjunction split; two or more distinct endpoints → PARALLEL;
5. a message that affirms the assistant's last offer ("Yes, please", "jah, palun",
   "да, давайте") is routed as the offer together with the reply, on its own words
   only when the offer matches nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from classifier_svc.action_words import ActionWords
from classifier_svc.answers import answers_pending
from classifier_svc.api_matcher import (
    Confidence,
    ConversationContext,
    Match,
    Scored,
    assess,
    assess_ranked,
    has_rival,
    rank,
)
from classifier_svc.calibration import CalibrationProfile
from classifier_svc.candidates import (
    ActiveSession,
    Candidate,
    Decision,
    ExecutionMode,
    PriorMessage,
    Reason,
    Workflow,
)
from classifier_svc.conversation import classify_history_question
from classifier_svc.multi_intent import split_intents
from classifier_svc.offers import opens_with_acceptance, with_offer
from classifier_svc.ports import EndpointDisambiguator, EndpointSearch, IntentDecomposer
from classifier_svc.small_talk import SmallTalkKind, classify_small_talk
from services.language import Lang

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ApiToolPolicy:
    profile: CalibrationProfile
    # Candidates fetched per search: more than one answer needs, so the calibrated score
    # (not the fusion rank) picks among them.
    search_limit: int = 10
    multi_intent_enabled: bool = True
    # MULTI_API_MAX_ENDPOINTS: at most this many endpoints run in parallel.
    max_parallel_endpoints: int = 3
    # A near tie among a later message's candidates is broken by what the last
    # `context_messages` messages of the history were about (0 turns the context off);
    # see api_matcher.ConversationContext. An affirmation ("Yes, please") names no domain
    # of its own, so it looks further back and lets the context choose among more.
    context_messages: int = 3
    context_window: float = 0.01
    affirmation_context_messages: int = 6
    affirmation_context_window: float = 0.03
    context_weight: float = 1.0
    # The conversation is embedded as one text, and the model's cost grows with its length
    # (an assistant's answer can be a long list): the most recent messages up to this many
    # characters, each cut to a third of it; the topic is in their opening words.
    context_chars: int = 600
    # With no conversation to go by, a lookup wins a near tie with an action of its API.
    read_first_window: float = 0.01
    # Among candidates within this margin of the best, the one whose action the message
    # names ("how did they vote on the car tax": votings, not the tax) wins over a best
    # the message only names the topic of (classifier_svc/action_words.py); 0 turns it off.
    # Measured on the demo catalogue: such pairs score 0.005–0.04 apart.
    action_window: float = 0.04
    # ... and its action word must be in at least this share of its texts of the word's
    # script (ActionWords.min_share): on CLINC, verbs of one or two examples flipped
    # clear matches.
    action_share: float = 0.25
    # Among candidates within this margin of the best, the one the message's words single
    # out (words only its texts say, more of them than any other's) wins a near tie
    # (ActionWords.choose_by_own_words); 0 turns it off. The demo's two calendars score
    # within 0.002–0.03 of each other on the same question.
    own_words_window: float = 0.03
    # A best endpoint rejected by a hair (evidence within `word_rescue_band` of 0) is
    # still accepted when the message's words say it: most of them are in its texts
    # (`word_rescue_coverage`, at least `word_rescue_words` words) and no rival has as
    # many. The prototype's scale gives words no weight (fitted on CLINC and SGD, where
    # a topic's words are its examples'), so "did the 2026 state budget pass? how many
    # against" — every word a votings endpoint's — scored as far off as a stranger's
    # question. A question about one bill ("did the weapons act amendment go through",
    # "было голосование о недоверии министру образования?") shares only 2 of 4–5 words and
    # missed by 0.01–0.04: band 0.04 and coverage 0.4 take them, CLINC dev unchanged
    # (in-scope 0.850, OOS recall 0.76). 0 turns it off.
    word_rescue_band: float = 0.04
    word_rescue_coverage: float = 0.4
    word_rescue_words: int = 2


@dataclass
class LlmUse:
    """LLM calls made for one decision (reported in End.llm_calls)."""

    calls: int = 0
    validated: bool = False
    notes: list[str] = field(default_factory=list)


class ApiToolMatcher:
    def __init__(
        self,
        search: EndpointSearch,
        policy: ApiToolPolicy,
        *,
        disambiguator: EndpointDisambiguator | None = None,
        decomposer: IntentDecomposer | None = None,
        actions: ActionWords | None = None,
    ) -> None:
        self._search = search
        self._actions = actions
        self._policy = policy
        self._disambiguator = disambiguator
        self._decomposer = decomposer

    async def match(self, message: str, lang: Lang, history: Sequence[PriorMessage] = ()) -> Decision | None:
        """The endpoint(s) for a new message, or None when no endpoint answers it."""
        talk = classify_small_talk(message)
        if talk is not None and (
            talk.kind is not SmallTalkKind.THANKS or with_offer(message, history) is None
        ):
            return None
        llm = LlmUse()
        decision = None
        # "Yes, please" / "jah, palun" / "да, давайте" after an offer takes the offer's intent:
        # the reply is read together with the offer it answers ("Would you like to buy
        # tickets for this bus? Yes, I need 2" is about bus tickets, though "I need 2
        # tickets" alone fits any). A reply whose offer matches nothing goes on its own.
        offered = with_offer(message, history)
        if offered is not None:
            context = self._context(history, affirmation=True)
            decision = await self._match_message(offered, lang, llm, context, decompose=False)
            if decision is not None:
                decision = replace(decision, reasoning=f"affirms the last offer; {decision.reasoning}")
        if decision is None:
            # "That will work, please reserve." accepts what was just shown, as a yes does.
            accepting = opens_with_acceptance(message)
            decision = await self._match_message(
                message, lang, llm, self._context(history, affirmation=accepting)
            )
        if decision is None:
            return None
        return replace(decision, llm_calls=llm.calls, llm_validated=llm.validated)

    def accepted(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """The endpoint this matcher's gate accepts among a search's candidates, if any."""
        return assess(candidates, self._policy.profile).best

    def clear(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """The endpoint this matcher's gate accepts with high confidence (clear of its
        runner-up), if any: what a strong match elsewhere means for a follow-up."""
        match = assess(candidates, self._policy.profile)
        return match.best if match.confidence is Confidence.HIGH else None

    async def claim(self, message: str, lang: Lang, *, registered_only: bool = False) -> Decision | None:
        """The endpoint for a message the CONTEXT layer would answer itself (small talk, a
        question about the conversation), when the catalogue takes it: its best accepted
        endpoint is one registered for conversation (its own examples are small talk or
        questions about the chat: a catalogue with "thank you" or "repeat" endpoints wants
        "thanks for your help" and "can you repeat that" routed there), or it is a clear
        match (high confidence, and it shares a word with the message). A catalogue
        without such endpoints keeps the friendly answers: a greeting resembles no
        address search closely and in words at once. With `registered_only` (a question
        about the chat, which names what was asked: "what plate did I give you?") only an
        endpoint registered for conversation takes it."""
        match = assess(await self._search.search(message, self._policy.search_limit), self._policy.profile)
        best = match.best
        if best is None:
            return None
        registered = converses(best.endpoint)
        if not registered and (
            registered_only or match.confidence is not Confidence.HIGH or best.matched_terms == 0
        ):
            return None
        why = "registered for conversation" if registered else "a clear match"
        return Decision(
            Workflow.API_TOOL_CALLING,
            lang,
            Reason.NEW_MATCH,
            match.score,
            endpoints=(best,),
            reasoning=f"the catalogue's own endpoint for it ({why}); {_explain(match, best)}",
            evidence=match.evidence,
        )

    async def switch_target(self, session: ActiveSession, message: str) -> Candidate | None:
        """Another endpoint the message clearly asks for instead of the session's, if any.
        The caller only asks when the message does not answer the session's question."""
        if classify_small_talk(message) is not None or answers_pending(message, session.pending):
            return None
        match = assess(await self._search.search(message, self._policy.search_limit), self._policy.profile)
        best = match.best
        if (
            best is not None
            and best.name not in session.endpoint_names
            and match.evidence >= self._policy.profile.switch_margin
        ):
            return best
        return None

    @property
    def search(self) -> EndpointSearch:
        return self._search

    def _context(self, history: Sequence[PriorMessage], *, affirmation: bool) -> ConversationLookup | None:
        policy = self._policy
        messages = policy.affirmation_context_messages if affirmation else policy.context_messages
        text = conversation_text(history[-messages:] if messages > 0 else (), policy.context_chars)
        if not text:
            return None
        window = policy.affirmation_context_window if affirmation else policy.context_window
        return ConversationLookup(self._search, text, policy, window)

    async def _match_message(
        self,
        message: str,
        lang: Lang,
        llm: LlmUse,
        conversation: ConversationLookup | None = None,
        *,
        decompose: bool = True,
    ) -> Decision | None:
        ranked = rank(await self._search.search(message, self._policy.search_limit), self._policy.profile)
        context = await conversation.context_for(ranked) if conversation is not None else None
        match = assess_ranked(
            ranked, self._policy.profile, context, read_first_window=self._policy.read_first_window
        )
        match = self._rescued_by_words(ranked, match)
        match = self._rescued_by_action(message, ranked, match)
        match = self._prefer_action(message, ranked, match)
        match = self._prefer_own_words(message, ranked, match)
        best = match.best
        if best is not None and len(match.plausible) > 1 and match.confidence is not Confidence.HIGH:
            best = await self._disambiguate(message, match, llm)
        # The seed's score-band gate: a clear, LLM-validated match is one intent. Anything
        # else may be several intents diluting one vector ("… and …"): try to split it.
        if (
            decompose
            and self._policy.multi_intent_enabled
            and not (
                llm.validated
                or (match.confidence is Confidence.HIGH and not _has_conjunction(message, self._policy))
            )
        ):
            # A message that matches one endpoint clearly splits only into parts that are
            # each clear matches too ("find the address … and calculate the vehicle tax …");
            # a single intent phrased with an "and" keeps its one endpoint.
            parallel = await self._decompose(
                message,
                llm,
                whole=match.best if match.confidence is Confidence.HIGH else None,
                whole_evidence=match.evidence,
            )
            if parallel:
                chosen = [c for c, _ in parallel]
                return Decision(
                    Workflow.API_TOOL_CALLING,
                    lang,
                    Reason.NEW_MATCH,
                    min(c.prototype_cosine or c.description_cosine for c in chosen),
                    ExecutionMode.PARALLEL,
                    tuple(chosen),
                    endpoint_queries=tuple(part for _, part in parallel),
                    reasoning="multi-intent: " + ", ".join(c.name for c in chosen),
                )
        if best is None:
            return None
        return Decision(
            Workflow.API_TOOL_CALLING,
            lang,
            Reason.NEW_MATCH,
            match.score,
            endpoints=(best,),
            reasoning=_explain(match, best),
            evidence=match.evidence,
        )

    def _rescued_by_words(self, ranked: Sequence[Scored], match: Match) -> Match:
        """A rejected best that the message's words clearly name, accepted (MEDIUM)."""
        policy = self._policy
        if match.best is not None or not ranked or policy.word_rescue_band <= 0:
            return match
        # The best by score, or a candidate tied with it whose texts hold more of the
        # message's words ("how long is spring break": both calendars score alike, only
        # one says "spring break").
        tied = [s for s in ranked if ranked[0].margin - s.margin <= policy.own_words_window]
        top = max(tied, key=lambda s: s.candidate.matched_terms)
        if top.candidate.matched_terms == ranked[0].candidate.matched_terms:
            top = ranked[0]
        best = top.candidate
        if (
            match.evidence < -policy.word_rescue_band
            or best.matched_terms < policy.word_rescue_words
            or best.term_coverage < policy.word_rescue_coverage
            or any(s.candidate.matched_terms >= best.matched_terms for s in ranked if s is not top)
        ):
            return match
        return replace(match, confidence=Confidence.MEDIUM, best=best, plausible=(best,), score=top.score)

    def _rescued_by_action(self, message: str, ranked: Sequence[Scored], match: Match) -> Match:
        """A best rejected by a hair whose action the message names, while no candidate
        near it has its own named ("how did the car tax law vote go in parliament": the
        question turns on "vote", the car tax is what was voted on), accepted (MEDIUM).
        Action words are an endpoint's only when its texts say them in two languages
        (ActionWords), so a one-language catalogue (CLINC) is never rescued so."""
        policy = self._policy
        if match.best is not None or not ranked or self._actions is None or policy.word_rescue_band <= 0:
            return match
        if match.evidence < -policy.word_rescue_band:
            return match
        near = [s for s in ranked if ranked[0].margin - s.margin <= policy.action_window]
        acting = [
            s
            for s in near
            if self._actions.action_tokens(
                message, s.candidate.name, s.candidate.endpoint, policy.action_share
            )
        ]
        if len(acting) != 1 or acting[0] is not ranked[0] or ranked[0].candidate.matched_terms == 0:
            return match
        best = ranked[0].candidate
        return replace(
            match, confidence=Confidence.MEDIUM, best=best, plausible=(best,), score=ranked[0].score
        )

    def acts_on(self, message: str, candidates: Sequence[Candidate]) -> Candidate | None:
        """The accepted endpoint whose action the message names, if any: "did the income
        tax amendment pass and how many voted against" asks how a vote went, whatever the
        vote was about."""
        if self._actions is None:
            return None
        match = assess(candidates, self._policy.profile)
        best = match.best
        if best is None or best.matched_terms == 0:
            return None
        said = self._actions.action_tokens(message, best.name, best.endpoint, self._policy.action_share)
        return best if said else None

    def _prefer_own_words(self, message: str, ranked: Sequence[Scored], match: Match) -> Match:
        """The near-tied candidate the message's words single out (ActionWords.
        choose_by_own_words) over a chosen one its prototype favoured by a hair: two
        calendars of one kind of question ("suvevaheaeg järgmine aasta", "christmas break
        for schools") score within 0.01 of each other, and only the words tell them apart.
        Acceptance stays the message's own decision: this only chooses among the near."""
        window = self._policy.own_words_window
        if self._actions is None or match.best is None or window <= 0 or not ranked:
            return match
        chosen = match.best
        near = [
            s for s in ranked if ranked[0].margin - s.margin <= window and s.candidate.name != chosen.name
        ]
        if not near:
            return match
        names = [chosen.name, *(s.candidate.name for s in near)]
        endpoints = [chosen.endpoint, *(s.candidate.endpoint for s in near)]
        share = self._policy.action_share
        if any(
            self._actions.action_tokens(message, n, e, share) for n, e in zip(names, endpoints, strict=True)
        ):
            return match  # an action named decides (_prefer_action): the topic's words do not
        index = self._actions.choose_by_own_words(message, names, endpoints)
        if index is None:
            return match
        winner = near[index - 1]
        return replace(match, best=winner.candidate, plausible=(winner.candidate,), score=winner.score)

    def _prefer_action(self, message: str, ranked: Sequence[Scored], match: Match) -> Match:
        """The near-tied candidate whose action the message names, over a chosen one
        whose topic it only names. Acceptance stays the message's own decision (the
        evidence of the best score): the action only chooses among what is accepted."""
        window = self._policy.action_window
        if self._actions is None or match.best is None or window <= 0 or not ranked:
            return match
        chosen = match.best
        near = [
            s for s in ranked if ranked[0].margin - s.margin <= window and s.candidate.name != chosen.name
        ]
        if not near:
            return match
        names = [chosen.name, *(s.candidate.name for s in near)]
        endpoints = [chosen.endpoint, *(s.candidate.endpoint for s in near)]
        index = self._actions.choose(message, names, endpoints, min_share=self._policy.action_share)
        if index is None:
            return match
        winner = near[index - 1]
        return replace(match, best=winner.candidate, plausible=(winner.candidate,), score=winner.score)

    async def _disambiguate(self, message: str, match: Match, llm: LlmUse) -> Candidate | None:
        """The LLM's pick among close candidates; the deterministic best when it fails."""
        assert match.best is not None
        if self._disambiguator is None:
            return match.best
        llm.calls += 1
        try:
            chosen = await self._disambiguator.choose(message, match.plausible)
        except Exception:
            log.warning("endpoint disambiguation failed; keeping the best score", exc_info=True)
            return match.best
        if chosen is None:
            # Seed: a rejection of every close candidate may be a diluted multi-intent
            # message; the decomposer gate decides, with the best score as the fallback.
            return match.best
        llm.validated = True
        return chosen

    async def _decompose(
        self,
        message: str,
        llm: LlmUse,
        *,
        whole: Candidate | None = None,
        whole_evidence: float = float("-inf"),
    ) -> list[tuple[Candidate, str]]:
        """Endpoints of the message's sub-intents, when there are at least two distinct ones,
        each with the part of the message it was matched from.
        Two intents dilute one vector, so each focused part must match at least as clearly
        as the whole message did; a fragment of one intent ("please go ahead") does not.
        When the whole message clearly matches one endpoint (`whole`), the split must keep
        that endpoint and the other parts need only be accepted matches: "find an address
        for me and also calculate my vehicle tax" matches the tax endpoint as a whole, and
        its address part is an accepted match of its own."""
        limit = self._policy.max_parallel_endpoints
        parts: list[str] = []
        if self._decomposer is not None:
            llm.calls += 1
            try:
                parts = (await self._decomposer.decompose(message, limit))[:limit]
            except Exception:
                log.warning("intent decomposition failed; using the conjunction split", exc_info=True)
                parts = []
        if len(parts) < 2:
            parts = split_intents(message, limit)
        if len(parts) < 2:
            return []
        results = await asyncio.gather(*(self._search.search(p, self._policy.search_limit) for p in parts))
        chosen: dict[str, tuple[Candidate, str]] = {}
        for text, candidates in zip(parts, results, strict=True):
            part = assess(candidates, self._policy.profile)
            if part.best is None:
                continue
            if whole is None:
                clear = part.evidence >= whole_evidence
            else:
                clear = part.best.name == whole.name or part.confidence is not Confidence.NONE
            if clear:
                chosen.setdefault(part.best.name, (part.best, text))
        if whole is not None:
            if whole.name not in chosen:
                return []
            # The endpoint the whole message matched stays the primary one.
            chosen = {whole.name: chosen[whole.name], **chosen}
        return list(chosen.values())[:limit] if len(chosen) >= 2 else []


def conversation_text(messages: Sequence[PriorMessage], max_chars: int) -> str:
    """The opening words of the latest messages (each cut to a third of `max_chars`) that
    fit in `max_chars` together, in the order they were written."""
    per_message = max(1, max_chars // 3)
    kept: list[str] = []
    total = 0
    for message in reversed(messages):
        content = " ".join(message.content.split())
        if len(content) > per_message:
            content = content[: per_message + 1].rsplit(" ", 1)[0]
        if not content:
            continue
        if total + len(content) > max_chars:
            break
        kept.append(content)
        total += len(content) + 1
    return " ".join(reversed(kept))


class ConversationLookup:
    """The context of a conversation (`api_matcher.ConversationContext`), searched only
    when a message's candidates have a near tie it could break, and once per turn."""

    def __init__(self, search: EndpointSearch, text: str, policy: ApiToolPolicy, window: float) -> None:
        self._search = search
        self._text = text
        self._policy = policy
        self._window = window
        self._context: ConversationContext | None = None
        self._searched = False

    async def context_for(self, ranked: Sequence[Scored]) -> ConversationContext | None:
        """The context, when the message's ranked candidates have a tie it could break."""
        if not has_rival(ranked, self._window):
            return None
        if not self._searched:
            self._searched = True
            found = await self._search.search(self._text, 2 * self._policy.search_limit)
            self._context = ConversationContext.of(
                rank(found, self._policy.profile), weight=self._policy.context_weight, window=self._window
            )
        return self._context


def converses(endpoint: object) -> bool:
    """Whether an endpoint is registered for conversation itself: one of its examples (or
    its description) is small talk or a question about the chat, as the CONTEXT layer's
    rules read them ("thanks for letting me know", "repeat what you just said")."""
    texts = [*(getattr(endpoint, "examples", ()) or ()), str(getattr(endpoint, "description", "") or "")]
    return any(
        classify_small_talk(text) is not None or classify_history_question(text) is not None
        for text in texts
        if text
    )


def _has_conjunction(message: str, policy: ApiToolPolicy) -> bool:
    return bool(split_intents(message, policy.max_parallel_endpoints))


def _explain(match: Match, chosen: Candidate) -> str:
    how = "prototype" if chosen.has_prototype else "description"
    return (
        f"{match.confidence.value} confidence: {chosen.name} {how} score={match.score:.3f} "
        f"evidence={match.evidence:+.3f} gap={match.gap:.3f} "
        f"words={chosen.matched_terms}/{chosen.query_terms} hybrid_rank={chosen.hybrid_rank}"
    )
