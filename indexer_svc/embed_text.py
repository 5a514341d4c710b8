"""The text each catalogue entity is embedded (dense) and term-hashed (sparse) from."""

from __future__ import annotations

from collections.abc import Sequence

from indexer_svc.validation import Endpoint, EndpointParam, KnowledgeDocument, Service


def params_summary(params: Sequence[EndpointParam]) -> str:
    """`countryIsoCode (string, required): ISO country code; validFrom (date, optional): Start date`"""
    parts = []
    for param in params:
        head = f"{param.name} ({param.type}, {'required' if param.required else 'optional'})"
        detail = param.description
        if param.enum:
            detail = f"{detail} [{', '.join(param.enum)}]".strip()
        parts.append(f"{head}: {detail}" if detail else head)
    return "; ".join(parts)


def _join(*sentences: str) -> str:
    return ". ".join(s.strip().rstrip(".") for s in sentences if s and s.strip())


def _examples(examples: list[str]) -> str:
    return f"Examples: {' | '.join(examples)}" if examples else ""


def endpoint_embed_text(endpoint: Endpoint) -> str:
    """`{name}. {description}. {enriched_context}. Examples: … Parameters: {params_summary}`:
    the design's text plus the example phrasings, which carry the words users use."""
    summary = params_summary(endpoint.params)
    return _join(
        endpoint.name,
        endpoint.description,
        endpoint.enriched_context,
        _examples(endpoint.examples),
        f"Parameters: {summary}" if summary else "",
    )


def service_embed_text(service: Service) -> str:
    summary = params_summary(service.params)
    return _join(
        service.name,
        service.description,
        service.enriched_context,
        _examples(service.examples),
        f"Parameters: {summary}" if summary else "",
    )


def document_embed_text(document: KnowledgeDocument) -> str:
    """`{title}. {keywords}. {section}. {text}`: the page's other names are searched (dense
    and sparse) with every passage of it, as its title is."""
    return _join(document.title, ", ".join(document.keywords), document.section, document.text)
