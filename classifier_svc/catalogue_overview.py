"""What the catalogue offers, in the citizen's language: the list a "what can you do?",
an out-of-domain reply or a refusal names.

It is read from the catalogue itself (the indexer's List RPCs): each endpoint's
`answer_titles`, each service's `answer_titles`, the titles of the knowledge documents
in that language. No demo name is known here; a catalogue without titles in a language
falls back to English titles, then to the first clause of the description. The list is
kept for `ttl` seconds (an injected clock), so a catalogue indexed at runtime shows up.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from classifier_svc.deadlines import lookup_timeout
from services.language import Lang

# Entries named in one reply, at most: a long catalogue is summarised by its first ones.
MAX_OFFERS = 12
MAX_TOPICS = 10
_CLAUSE = re.compile(r"[.;:(]|\s[-–]\s")


@dataclass(frozen=True)
class Offer:
    titles: Mapping[str, str]
    description: str = ""
    # How citizens ask for it (the catalogue's examples): the benign side of the guard.
    examples: tuple[str, ...] = ()

    def title(self, lang: Lang) -> str:
        for key in (lang, "en"):
            if self.titles.get(key):
                return self.titles[key].strip()
        if self.titles:
            return next(iter(self.titles.values())).strip()
        return _CLAUSE.split(self.description, maxsplit=1)[0].strip()


@dataclass(frozen=True)
class Overview:
    # API endpoints and registered services: things the assistant looks up.
    offers: tuple[Offer, ...] = ()
    # Knowledge documents: (language, title).
    topics: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def offer_titles(self, lang: Lang) -> list[str]:
        return _distinct(o.title(lang) for o in self.offers)[:MAX_OFFERS]

    def topic_titles(self, lang: Lang) -> list[str]:
        own = [t for language, t in self.topics if language == lang]
        return _distinct(own or [t for language, t in self.topics if language in ("", "en")])[:MAX_TOPICS]

    def benign_texts(self) -> list[str]:
        """What the catalogue is asked for: its examples, or descriptions where it has none,
        and its knowledge titles."""
        texts: list[str] = []
        for offer in self.offers:
            texts.extend(offer.examples or (offer.description,))
        texts.extend(title for _, title in self.topics)
        return _distinct(t for t in texts if t)

    @property
    def empty(self) -> bool:
        return not self.offers and not self.topics


def _distinct(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        key = item.casefold()
        if item and key not in seen:
            seen.add(key)
            out.append(item)
    return out


class CatalogueOverview(Protocol):
    async def overview(self) -> Overview:
        """What the catalogue offers now. Raises when the catalogue cannot be read."""
        ...


class StaticOverview:
    """A fixed overview (tests, the evaluation harness)."""

    def __init__(self, overview: Overview) -> None:
        self._overview = overview

    async def overview(self) -> Overview:
        return self._overview


class IndexerCatalogueOverview:
    """The overview from the indexer's List RPCs, read at most once per `ttl` seconds.
    A failed read keeps the last overview (or an empty one): a "what can you do?"
    never fails because the indexer restarts."""

    def __init__(
        self,
        stub: indexer_pb2_grpc.IndexerServiceStub,
        timeout: float,
        *,
        ttl: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        page_size: int = 200,
    ) -> None:
        self._stub = stub
        self._timeout = timeout
        self._ttl = ttl
        self._clock = clock
        self._page_size = page_size
        self._cached: Overview | None = None
        self._read_at = float("-inf")
        self._lock = asyncio.Lock()

    async def overview(self) -> Overview:
        async with self._lock:
            if self._cached is not None and self._clock() - self._read_at < self._ttl:
                return self._cached
            try:
                self._cached = await self._read()
            except Exception:
                if self._cached is None:
                    raise
            self._read_at = self._clock()
            return self._cached

    async def _read(self) -> Overview:
        offers: list[Offer] = []
        token = ""
        while True:
            endpoints = await self._stub.ListEndpoints(
                indexer_pb2.ListEndpointsRequest(page_size=self._page_size, page_token=token),
                timeout=lookup_timeout(self._timeout),
            )
            offers.extend(
                Offer(dict(e.answer_titles), e.description, tuple(e.examples)) for e in endpoints.endpoints
            )
            token = endpoints.next_page_token
            if not token:
                break
        while True:
            services = await self._stub.ListServices(
                indexer_pb2.ListServicesRequest(page_size=self._page_size, page_token=token),
                timeout=lookup_timeout(self._timeout),
            )
            offers.extend(
                Offer(dict(s.answer_titles), s.description, tuple(s.examples)) for s in services.services
            )
            token = services.next_page_token
            if not token:
                break
        topics: list[tuple[str, str]] = []
        while True:
            documents = await self._stub.ListKnowledgeDocuments(
                indexer_pb2.ListKnowledgeDocumentsRequest(page_size=self._page_size, page_token=token),
                timeout=lookup_timeout(self._timeout),
            )
            topics.extend((d.language, d.title) for d in documents.documents if d.title)
            token = documents.next_page_token
            if not token:
                break
        return Overview(tuple(offers), tuple(topics))
