"""In-memory ports for router tests: scripted catalogue, knowledge and sessions."""

from __future__ import annotations

from classifier_svc.api_tool import ApiToolMatcher, ApiToolPolicy
from classifier_svc.calibration import CalibrationProfile, ScoreThresholds
from classifier_svc.candidates import ActiveSession, Candidate, ChatSnapshot
from classifier_svc.passages import Passage
from classifier_svc.ports import EndpointSearch
from services.language import Lang

# A profile on the scale of these scripted cosines (endpoints without example prototypes
# are scored by their description cosine).
PROFILE = CalibrationProfile(
    embedding_model="test-model",
    prototype=ScoreThresholds(accept=0.85, gap_weight=1.0),
    description=ScoreThresholds(accept=0.80, gap_weight=1.0),
    switch_margin=0.02,
)


def cand(name: str, cosine: float, rank: int = 1, matched: int = 2, of: int = 2) -> Candidate:
    return Candidate(
        f"id-{name}",
        name,
        cosine,
        rank,
        matched_terms=matched,
        query_terms=of,
        endpoint=name,
        description_cosine=cosine,
    )


def matcher(search: EndpointSearch, *, multi_intent: bool = True) -> ApiToolMatcher:
    """The API-tool matcher over a scripted endpoint search."""
    return ApiToolMatcher(search, ApiToolPolicy(profile=PROFILE, multi_intent_enabled=multi_intent))


def passage(
    doc: str,
    cosine: float,
    *,
    text: str = "Some text.",
    section: str = "",
    lang: str = "en",
    title: str = "",
    matched: int = 2,
    of: int = 2,
    rank: int = 1,
) -> Passage:
    return Passage(
        document_id=f"{doc}#0",
        title=title or doc,
        section=section,
        text=text,
        url=f"https://example.test/{doc}",
        language=lang,
        dense_cosine=cosine,
        hybrid_rank=rank,
        matched_terms=matched,
        query_terms=of,
    )


class Scripted:
    """Answers each query with what is scripted for the first key it contains."""

    def __init__(self, script: dict[str, list] | None = None) -> None:
        self.script = script or {}
        self.queries: list[str] = []

    async def search(self, query: str, limit: int) -> list:
        self.queries.append(query)
        for key, items in self.script.items():
            if key.lower() in query.lower():
                return list(items[:limit])
        return []


class DownSearch:
    """A search whose backend (the indexer) is away: every query fails as gRPC would."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    async def search(self, query: str, limit: int) -> list:
        self.queries.append(query)
        raise ConnectionError("indexer unreachable")


class Sessions:
    def __init__(self, sessions: dict[str, ActiveSession] | None = None, *, fail: bool = False) -> None:
        self.sessions = sessions or {}
        self.fail = fail

    async def chat_state(
        self, chat_id: str, owner_id: str = "", message: str = "", lang: Lang | None = None
    ) -> ChatSnapshot:
        if self.fail:
            raise RuntimeError("loop_svc is down")
        return ChatSnapshot(self.sessions.get(chat_id))

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None:
        self.sessions.pop(chat_id, None)
