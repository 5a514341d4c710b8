"""Wires classifier_svc: channels to indexer and loop, the calibration profile, the
API-tool matcher (with LLM steps when a model is configured), the router, the servicer."""

from __future__ import annotations

import asyncio
import logging

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.indexer.v1 import indexer_pb2_grpc
from atc.loop.v1 import loop_pb2_grpc
from classifier_svc.action_words import ActionWords
from classifier_svc.adapters import IndexerEndpointSearch, LoopSessionDirectory
from classifier_svc.api_tool import ApiToolMatcher, ApiToolPolicy
from classifier_svc.calibration import CalibrationProfile, load_profile
from classifier_svc.catalogue_adapters import (
    IndexerKnowledgeSearch,
    IndexerServiceSearch,
    IndexerTextEmbedder,
)
from classifier_svc.catalogue_overview import IndexerCatalogueOverview
from classifier_svc.conversation import DspyConversationAnswerer
from classifier_svc.follow_up import FollowUpRouting
from classifier_svc.guard import DspyGuardClassifier, Guard
from classifier_svc.llm_steps import DspyEndpointDisambiguator, DspyIntentDecomposer
from classifier_svc.query_vectors import QueryVectors
from classifier_svc.rag_answer import RagResponder
from classifier_svc.rag_dspy import DspyRagAnswerer
from classifier_svc.rag_extractive import ExtractiveAnswerer
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.servicer import ClassifierServicer
from classifier_svc.settings import ClassifierSettings
from services.clients import LoopClient
from services.errors import FailedPrecondition
from services.language import LanguageDetector
from services.llm import build_lm
from services.runtime.channels import open_channel
from services.runtime.server import GrpcServer, ServiceMount, service_server
from services.runtime.telemetry import Telemetry

log = logging.getLogger(__name__)


def router_policy(settings: ClassifierSettings, profile: CalibrationProfile) -> RouterPolicy:
    return RouterPolicy(
        weak_match=profile.weak_match,
        api_tool_enabled=settings.api_tool_enabled,
        context_enabled=settings.context_enabled,
        search_limit=settings.search_limit,
        tool_classifier_enabled=settings.tool_classifier_enabled,
        service_enabled=settings.service_workflow_enabled,
        fallback_to_rag_on_error=settings.fallback_to_rag_on_error,
        service_knowledge_margin=profile.service.knowledge_margin,
        service_thresholds=profile.service.thresholds(),
        rag_gate=profile.knowledge.gate(settings.rag_max_passages),
        rag_search_limit=settings.rag_search_limit,
    )


def api_tool_policy(settings: ClassifierSettings, profile: CalibrationProfile) -> ApiToolPolicy:
    return ApiToolPolicy(
        profile=profile,
        search_limit=settings.search_limit,
        multi_intent_enabled=settings.multi_intent_enabled,
        max_parallel_endpoints=settings.max_parallel_endpoints,
        context_messages=settings.conversation_context_messages,
        affirmation_context_messages=settings.affirmation_context_messages,
    )


async def warm_up(search: IndexerEndpointSearch, timeout: float) -> None:
    """Search once before serving, so the first user does not pay the model load; a
    profile fitted for another model stops the start with a clear error. The guard's
    prototypes are embedded when a message first needs them (few do)."""
    try:
        await asyncio.wait_for(search.warm_up(), timeout)
    except FailedPrecondition:
        raise
    except Exception as exc:  # an indexer still starting must not keep us down
        log.warning("warm-up search failed (%s); the first turn will load the model", exc)


async def build_server(settings: ClassifierSettings) -> GrpcServer:
    telemetry = Telemetry.from_settings("classifier", settings)
    profile = load_profile(settings.calibration_profile or None)
    indexer_channel = open_channel(settings.indexer_target)
    loop_channel = open_channel(settings.loop_target)
    loop_stub = loop_pb2_grpc.LoopServiceStub(loop_channel)
    indexer_stub = indexer_pb2_grpc.IndexerServiceStub(indexer_channel)
    lookup_timeout = settings.lookup_timeout_seconds
    # One embedding per text across the endpoint, service and knowledge searches of a turn.
    vectors = QueryVectors()
    search = IndexerEndpointSearch(indexer_stub, profile, lookup_timeout, vectors)
    lm = build_lm(settings.llm_config(), cache_dir=settings.dspy_cache_dir, telemetry=telemetry)
    overview = IndexerCatalogueOverview(
        indexer_stub, lookup_timeout, ttl=settings.catalogue_overview_ttl_seconds
    )
    guard = (
        Guard(
            profile.guard,
            embedder=IndexerTextEmbedder(indexer_stub, lookup_timeout, vectors),
            overview=overview,
            classifier=DspyGuardClassifier(lm) if lm is not None else None,
        )
        if settings.guard_enabled
        else None
    )
    detector = LanguageDetector()
    if settings.warm_up:
        detector.warm_up()
    api_tool = ApiToolMatcher(
        search,
        api_tool_policy(settings, profile),
        disambiguator=DspyEndpointDisambiguator(lm) if lm is not None else None,
        decomposer=DspyIntentDecomposer(lm) if lm is not None else None,
        actions=ActionWords(detector),
    )
    router = Router(
        api_tool,
        LoopSessionDirectory(LoopClient(loop_channel), lookup_timeout),
        detector,
        router_policy(settings, profile),
        services=IndexerServiceSearch(indexer_stub, lookup_timeout, vectors),
        knowledge=IndexerKnowledgeSearch(indexer_stub, lookup_timeout, vectors),
        conversation=DspyConversationAnswerer(lm) if lm is not None else None,
        follow_ups=FollowUpRouting(
            search,
            override_cosine=profile.follow_up_override_cosine,
            search_limit=settings.search_limit,
            clear_match=api_tool.clear,
        ),
        telemetry=telemetry,
        guard=guard,
        overview=overview,
    )
    rag = RagResponder(ExtractiveAnswerer(), DspyRagAnswerer(lm) if lm is not None else None)
    servicer = ClassifierServicer(router, loop_stub, settings.downstream_timeout_seconds, rag=rag)

    async def close_channels() -> None:
        await indexer_channel.close()
        await loop_channel.close()

    if settings.warm_up:
        try:
            await warm_up(search, settings.warm_up_timeout_seconds)
        except BaseException:
            await close_channels()
            raise

    return service_server(
        settings,
        ServiceMount.of(
            classifier_pb2,
            "ClassifierService",
            classifier_pb2_grpc.add_ClassifierServiceServicer_to_server,
            servicer,
        ),
        telemetry=telemetry,
        on_shutdown=[close_channels],
    )
