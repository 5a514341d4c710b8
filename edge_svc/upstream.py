"""The edge's gRPC clients, shared by the routes.

Handed in by the caller of `create_app`, or opened by the app's lifespan
(grpc.aio channels must be created inside the event loop that uses them).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.clients import ClassifierClient, IndexerClient


@dataclass
class Upstream:
    classifier_client: ClassifierClient | None = None
    indexer_client: IndexerClient | None = None

    @property
    def classifier(self) -> ClassifierClient:
        if self.classifier_client is None:
            raise RuntimeError("the edge's classifier client is not open (the app's lifespan has not run)")
        return self.classifier_client

    @property
    def indexer(self) -> IndexerClient:
        if self.indexer_client is None:
            raise RuntimeError("the edge's indexer client is not open (the app's lifespan has not run)")
        return self.indexer_client

    async def close(self) -> None:
        if self.classifier_client is not None:
            await self.classifier_client.close()
        if self.indexer_client is not None:
            await self.indexer_client.close()
