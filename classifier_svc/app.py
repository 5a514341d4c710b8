"""Wires classifier_svc: channels to indexer and loop, the router, the servicer."""

from __future__ import annotations

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.indexer.v1 import indexer_pb2_grpc
from atc.loop.v1 import loop_pb2_grpc
from classifier_svc.adapters import IndexerEndpointSearch, LoopSessionDirectory
from classifier_svc.api_matcher import Thresholds
from classifier_svc.follow_up import FollowUpRouting
from classifier_svc.router import Router, RouterPolicy
from classifier_svc.servicer import ClassifierServicer
from classifier_svc.settings import ClassifierSettings
from services.language import LanguageDetector
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
    )


async def build_server(settings: ClassifierSettings) -> GrpcServer:
    indexer_channel = open_channel(settings.indexer_target)
    loop_channel = open_channel(settings.loop_target)
    loop_stub = loop_pb2_grpc.LoopServiceStub(loop_channel)
    indexer_stub = indexer_pb2_grpc.IndexerServiceStub(indexer_channel)
    search = IndexerEndpointSearch(indexer_stub, LOOKUP_TIMEOUT_SECONDS)
    router = Router(
        search=search,
        sessions=LoopSessionDirectory(loop_stub, LOOKUP_TIMEOUT_SECONDS),
        detector=LanguageDetector(),
        policy=router_policy(settings),
        follow_ups=FollowUpRouting(
            loop_stub,
            search,
            timeout=LOOKUP_TIMEOUT_SECONDS,
            override_cosine=settings.intent_switch_threshold,
            search_limit=settings.search_limit,
        ),
    )
    servicer = ClassifierServicer(router, loop_stub, settings.downstream_timeout_seconds)

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
        on_shutdown=[close_channels],
    )
