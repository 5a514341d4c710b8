"""gRPC-backed implementations of the router's ports (indexer search, loop sessions)."""

from __future__ import annotations

import logging

from atc.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from atc.loop.v1 import loop_pb2
from classifier_svc.calibration import CalibrationProfile
from classifier_svc.candidates import ActiveSession, Candidate, ChatSnapshot, PendingParam
from classifier_svc.catalogue_adapters import CollectionSearch, endpoint_candidates
from classifier_svc.deadlines import lookup_timeout
from classifier_svc.ports import SessionLookupFailed
from classifier_svc.query_vectors import QueryVectors
from services import language
from services.clients import LoopClient
from services.errors import InvalidArgument, MeshError, PermissionDenied, Unauthenticated
from services.language import Lang
from services.llm import record_llm_call


class IndexerEndpointSearch(CollectionSearch[Candidate]):
    """Searches the indexer's endpoint collection. Each distinct text is embedded once
    (the first search returns its vector; later searches of the same text send it back),
    and every response must come from the model the calibration profile was fitted for."""

    collection = indexer_pb2.COLLECTION_ENDPOINTS

    def __init__(
        self,
        stub: indexer_pb2_grpc.IndexerServiceStub,
        profile: CalibrationProfile,
        default_timeout: float,
        vectors: QueryVectors | None = None,
    ) -> None:
        super().__init__(stub, default_timeout, vectors)
        self._profile = profile

    def check(self, response: indexer_pb2.SearchResponse) -> None:
        self._profile.check_model(response.embedding_model)

    def found(self, response: indexer_pb2.SearchResponse) -> list[Candidate]:
        return endpoint_candidates(response)

    async def warm_up(self) -> None:
        """One search at startup: loads the indexer's model and index, and checks that it
        embeds with the profile's model (a mismatch is a startup error, not a bad route)."""
        await self.search("warm-up", 1)
        self.vectors.clear()


log = logging.getLogger("atc.classifier.sessions")


class LoopSessionDirectory:
    def __init__(self, loop: LoopClient, default_timeout: float) -> None:
        self._loop = loop
        self._default_timeout = default_timeout

    async def chat_state(
        self, chat_id: str, owner_id: str = "", message: str = "", lang: Lang | None = None
    ) -> ChatSnapshot:
        """One read of the chat (LoopService.ChatState): its session, else, for a message,
        the loop's follow-up verdict, whose model calls belong to this turn."""
        try:
            response = await self._loop.chat_state(
                chat_id,
                owner_id=owner_id,
                message=message,
                language=lang,
                timeout=lookup_timeout(self._default_timeout),
            )
        # Another owner's chat is refused (the edge answers 403), never resumed, switched
        # or deleted; a malformed request is the caller's to fix.
        except (PermissionDenied, InvalidArgument, Unauthenticated):
            raise
        except MeshError as exc:
            # Sessions unreachable (Redis down or hung, the loop away): not knowing whether
            # a chat is under way is not "no session" — routing it as a fresh turn gave a
            # chat mid-question the out-of-domain reply. The turn is "try again" instead.
            log.warning("chat state lookup failed: %s %s", exc.reason, exc)
            raise SessionLookupFailed("the chat's session could not be looked up") from exc
        follow_up = response.follow_up if response.HasField("follow_up") else None
        if follow_up is not None:
            record_llm_call(follow_up.llm_calls)
        if not response.HasField("session"):
            return ChatSnapshot(None, follow_up)
        session = response.session
        return ChatSnapshot(
            ActiveSession(
                chat_id=session.chat_id,
                endpoint_names=tuple(e.name for e in session.endpoints),
                language=language.from_proto(session.language),
                is_service=bool(session.endpoints) and all(e.type == "service" for e in session.endpoints),
                pending=_pending(session),
            )
        )

    async def drop_session(self, chat_id: str, owner_id: str = "") -> None:
        await self._loop.delete_session(
            chat_id, owner_id=owner_id, timeout=lookup_timeout(self._default_timeout)
        )


def _pending(session: loop_pb2.Session) -> tuple[PendingParam, ...]:
    """Required parameters no endpoint of the session has a value for yet."""
    pending = []
    for endpoint in session.endpoints:
        collected = session.collected[endpoint.name].values if endpoint.name in session.collected else {}
        for param in endpoint.params:
            if param.required and not collected.get(param.name):
                pending.append(PendingParam(param.name, param.type, tuple(param.enum)))
    return tuple(pending)
