"""Wires classifier_svc: channels to indexer and loop, the router, the servicer."""

from __future__ import annotations

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.indexer.v1 import indexer_pb2_grpc
from atc.loop.v1 import loop_pb2_grpc
from classifier_svc.adapters import IndexerEndpointSearch, LoopSessionDirectory
from classifier_svc.api_matcher import Thresholds
from classifier_svc.catalogue_adapters import IndexerKnowledgeSearch, IndexerServiceSearch
from classifier_svc.conversation import DspyConversationAnswerer
from classifier_svc.follow_up import FollowUpRouting
from classifier_svc.rag_answer import RagResponder
from classifier_svc.rag_dspy import DspyRagAnswerer
from classifier_svc.rag_extractive import ExtractiveAnswerer
from classifier_svc.rag_gate import RagGate
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.servicer import ClassifierServicer
from classifier_svc.settings import ClassifierSettings
from services.language import LanguageDetector
from services.llm import build_lm
from services.runtime.channels import open_channel
from services.runtime.server import GrpcServer, ServiceMount

SERVICE_NAME = classifier_pb2.DESCRIPTOR.services_by_name["ClassifierService"].full_name

# Catalogue lookups and session checks are quick; a stuck one must not hold a turn.
LOOKUP_TIMEOUT_SECONDS = 5.0


def router_policy(settings: ClassifierSettings) -> RouterPolicy:
    return RouterPolicy(
        thresholds=Thresholds(
            minimum=settings.api_tool_min_threshold,
            high=settings.api_tool_high_threshold,
            gap=settings.api_tool_gap_threshold,
            min_term_coverage=settings.api_tool_min_term_coverage,
            dense_only=settings.api_tool_dense_only_threshold,
        ),
        intent_switch_threshold=settings.intent_switch_threshold,
        search_limit=settings.search_limit,
        api_tool_enabled=settings.api_tool_enabled,
        context_enabled=settings.context_enabled,
        multi_intent_enabled=settings.multi_intent_enabled,
        max_parallel_endpoints=settings.max_parallel_endpoints,
        tool_classifier_enabled=settings.tool_classifier_enabled,
        service_enabled=settings.service_workflow_enabled,
        fallback_to_rag_on_error=settings.fallback_to_rag_on_error,
        service_knowledge_margin=settings.service_knowledge_margin,
        service_thresholds=Thresholds(
            minimum=settings.service_min_threshold,
            high=settings.service_high_threshold,
            gap=0.0,
            min_term_coverage=settings.service_min_term_coverage,
            dense_only=settings.service_dense_only_threshold,
        ),
        rag_gate=RagGate(
            min_cosine=settings.rag_min_threshold,
            min_term_coverage=settings.rag_min_term_coverage,
            dense_only=settings.rag_dense_only_threshold,
            max_passages=settings.rag_max_passages,
        ),
        rag_search_limit=settings.rag_search_limit,
    )


async def build_server(settings: ClassifierSettings) -> GrpcServer:
    indexer_channel = open_channel(settings.indexer_target)
    loop_channel = open_channel(settings.loop_target)
    loop_stub = loop_pb2_grpc.LoopServiceStub(loop_channel)
    indexer_stub = indexer_pb2_grpc.IndexerServiceStub(indexer_channel)
    lm = build_lm(settings.llm_config(), cache_dir=settings.dspy_cache_dir)
    search = IndexerEndpointSearch(indexer_stub, LOOKUP_TIMEOUT_SECONDS)
    router = Router(
        search=search,
        sessions=LoopSessionDirectory(loop_stub, LOOKUP_TIMEOUT_SECONDS),
        detector=LanguageDetector(),
        policy=router_policy(settings),
        services=IndexerServiceSearch(indexer_stub, LOOKUP_TIMEOUT_SECONDS),
        knowledge=IndexerKnowledgeSearch(indexer_stub, LOOKUP_TIMEOUT_SECONDS),
        conversation=DspyConversationAnswerer(lm) if lm is not None else None,
        follow_ups=FollowUpRouting(
            loop_stub,
            search,
            timeout=LOOKUP_TIMEOUT_SECONDS,
            override_cosine=settings.intent_switch_threshold,
            search_limit=settings.search_limit,
        ),
    )
    rag = RagResponder(ExtractiveAnswerer(), DspyRagAnswerer(lm) if lm is not None else None)
    servicer = ClassifierServicer(router, loop_stub, settings.downstream_timeout_seconds, rag=rag)

    async def close_channels() -> None:
        await indexer_channel.close()
        await loop_channel.close()

    return GrpcServer(
        [
            ServiceMount(
                SERVICE_NAME,
                lambda s: classifier_pb2_grpc.add_ClassifierServiceServicer_to_server(servicer, s),
            )
        ],
        host=settings.host,
        port=settings.port,
        grace_seconds=settings.grace_seconds,
        runtime=settings,
        on_shutdown=[close_channels],
    )
