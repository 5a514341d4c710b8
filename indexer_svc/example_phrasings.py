"""Example phrasings written by an LLM at indexing time (when one is configured).

An endpoint's prototype is only as good as its examples; a catalogue entry often has
few or none, and only in one language. With an LLM, a DSPy step writes realistic user
questions for the endpoint in Estonian, English and Russian. They are cached by the
endpoint's content hash: re-indexing an unchanged endpoint costs no LLM call, and any
failure leaves the endpoint with its own examples (indexing never fails for this).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from indexer_svc.embed_text import params_summary
from indexer_svc.validation import Endpoint

if TYPE_CHECKING:
    import dspy

log = logging.getLogger(__name__)

# Per language; with the catalogue's own examples this is plenty for a stable mean.
PHRASINGS_PER_LANGUAGE = 8
LANGUAGES = ("et", "en", "ru")


class PhrasingCache(Protocol):
    async def get(self, key: str) -> list[str] | None: ...

    async def put(self, key: str, phrasings: list[str]) -> None: ...


class MemoryPhrasingCache:
    def __init__(self) -> None:
        self._items: dict[str, list[str]] = {}

    async def get(self, key: str) -> list[str] | None:
        return self._items.get(key)

    async def put(self, key: str, phrasings: list[str]) -> None:
        self._items[key] = list(phrasings)


class ExamplePhrasingWriter:
    """`lm` None → writes nothing (the endpoint keeps its own examples)."""

    def __init__(self, lm: dspy.LM | Any | None, cache: PhrasingCache | None = None) -> None:
        self._lm = lm
        self._cache = cache or MemoryPhrasingCache()
        self._program: Any = None
        self.llm_calls = 0

    @property
    def uses_llm(self) -> bool:
        return self._lm is not None

    async def phrasings(self, endpoint: Endpoint, content_hash: str) -> list[str]:
        if self._lm is None:
            return []
        cached = await self._cache.get(content_hash)
        if cached is not None:
            return cached
        import dspy

        if self._program is None:
            self._program = dspy.Predict(_phrasing_signature())
        self.llm_calls += 1
        try:
            with dspy.context(lm=self._lm):
                result = await self._program.acall(
                    name=endpoint.name,
                    description=endpoint.description,
                    parameters=params_summary(endpoint.params),
                    known_examples=" | ".join(endpoint.examples),
                    per_language=PHRASINGS_PER_LANGUAGE,
                )
        except Exception:
            log.warning(
                "LLM example phrasings for %s failed; using its own examples", endpoint.name, exc_info=True
            )
            return []
        phrasings = [
            " ".join(str(p).split())
            for lang in LANGUAGES
            for p in (getattr(result, f"questions_{lang}", None) or [])[:PHRASINGS_PER_LANGUAGE]
            if str(p).strip()
        ]
        await self._cache.put(content_hash, phrasings)
        return phrasings


def _phrasing_signature() -> Any:
    import dspy

    class EndpointUserPhrasings(dspy.Signature):
        """Write realistic questions a citizen would type to a public-sector chatbot when they
        need this API endpoint: short and long, formal and casual, with and without concrete
        values (dates in words, names, numbers), in Estonian, English and Russian."""

        name: str = dspy.InputField(desc="snake_case function name")
        description: str = dspy.InputField()
        parameters: str = dspy.InputField()
        known_examples: str = dspy.InputField(desc="examples the catalogue already has, | separated")
        per_language: int = dspy.InputField(desc="how many questions per language")
        questions_et: list[str] = dspy.OutputField(desc="questions in Estonian")
        questions_en: list[str] = dspy.OutputField(desc="questions in English")
        questions_ru: list[str] = dspy.OutputField(desc="questions in Russian")

    return EndpointUserPhrasings
