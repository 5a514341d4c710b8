"""Search context written for an endpoint or service at indexing time.

With an LLM: a DSPy step writes use cases, synonyms and phrasings in the description's
language (as the design's CONTEXT_TEMPLATE asks). Without one (the offline default), the
context is built from what the entity already says but the embed text does not spell
out: the topic words of its snake_case name (minus the leading action verb), the words
of its camelCase parameter names, and allowed parameter values. It stays in the source
language: inventing translations deterministically would add noise, and the multilingual
dense model already bridges et/ru queries to en descriptions.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from indexer_svc.embed_text import params_summary
from indexer_svc.validation import Endpoint, EndpointParam, Service
from services.llm import counted

if TYPE_CHECKING:
    import dspy

log = logging.getLogger(__name__)

# Leading verbs of function names say "call me", not what the endpoint is about.
_ACTION_VERBS = frozenset(
    {
        "get",
        "fetch",
        "list",
        "search",
        "find",
        "lookup",
        "query",
        "retrieve",
        "read",
        "load",
        "show",
        "check",
        "post",
        "create",
        "submit",
        "send",
        "update",
        "set",
        "calculate",
        "compute",
    }
)
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> list[str]:
    """'get_national_holidays' → ['national', 'holidays']; 'countryIsoCode' → ['country', 'iso', 'code']."""
    words = [w.lower() for w in re.split(r"[_\W]+", _CAMEL_BOUNDARY.sub("_", name)) if w]
    while len(words) > 1 and words[0] in _ACTION_VERBS:
        words = words[1:]
    return words


def _param_phrase(param: EndpointParam) -> str:
    phrase = " ".join(name_words(param.name))
    if param.enum:
        phrase += f" ({', '.join(param.enum)})"
    return phrase


def deterministic_context(name: str, params: list[EndpointParam]) -> str:
    topic = " ".join(name_words(name))
    inputs = ", ".join(_param_phrase(p) for p in params)
    return f"{topic}; by {inputs}" if inputs else topic


class EndpointEnricher:
    """Writes `enriched_context` for endpoints and services.

    `lm` None → the deterministic path only. An LM failure falls back to it too: indexing
    must not fail because the enrichment model is down.
    """

    def __init__(self, lm: dspy.LM | None = None) -> None:
        self._lm = counted(lm) if lm is not None else None
        self._program: Any = None

    @property
    def uses_llm(self) -> bool:
        return self._lm is not None

    async def enrich_endpoint(self, endpoint: Endpoint, *, use_llm: bool = True) -> str:
        fallback = deterministic_context(endpoint.name, endpoint.params)
        if not (use_llm and self._lm is not None):
            return fallback
        return await self._generate(
            name=endpoint.name,
            description=endpoint.description,
            details=(
                f"{endpoint.method} {endpoint.url}. Examples: {' | '.join(endpoint.examples)}. "
                f"Parameters: {params_summary(endpoint.params)}"
            ),
            fallback=fallback,
        )

    async def enrich_service(self, service: Service, *, use_llm: bool = True) -> str:
        fallback = deterministic_context(service.name, service.params)
        if not (use_llm and self._lm is not None):
            return fallback
        return await self._generate(
            name=service.name,
            description=service.description,
            details=f"Examples: {' | '.join(service.examples)}. Parameters: {params_summary(service.params)}",
            fallback=fallback,
        )

    async def _generate(self, *, name: str, description: str, details: str, fallback: str) -> str:
        import dspy

        if self._program is None:
            self._program = dspy.Predict(_context_signature())
        try:
            with dspy.context(lm=self._lm):
                result = await self._program.acall(name=name, description=description, details=details)
        except Exception:
            log.exception("LLM enrichment of %s failed; using the deterministic context", name)
            return fallback
        context = str(getattr(result, "search_context", "") or "").strip()
        return context or fallback


def _context_signature() -> Any:
    import dspy

    class EndpointSearchContext(dspy.Signature):
        """Write search context for an API endpoint so user questions find it: what the user
        wants to accomplish, key terms and synonyms, related concepts, common phrasings.
        Write in the same language as the description (Estonian, English or Russian).
        One paragraph, no lists, at most 80 words."""

        name: str = dspy.InputField(desc="snake_case function name")
        description: str = dspy.InputField()
        details: str = dspy.InputField(desc="method, URL and parameters")
        search_context: str = dspy.OutputField()

    return EndpointSearchContext
