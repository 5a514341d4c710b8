"""The chat page in headless Chromium against the real edge and a scripted classifier:
Russian labels, sources rendered as safe links, routing details hidden by default."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from atc.classifier.v1 import classifier_pb2, classifier_pb2_grpc
from atc.common.v1 import turn_event_pb2 as TE
from devtools.launcher.inprocess import serve_asgi
from edge_svc.app import create_app
from edge_svc.settings import EdgeSettings
from tests.e2e.cdp import chromium_page, chromium_path

CHROMIUM = chromium_path()
pytestmark = pytest.mark.skipif(
    # In CI (`make test` installs chromium) a missing browser is a failure, not a skip.
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (make test installs it with apt-get)",
)


class SourcesClassifier(classifier_pb2_grpc.ClassifierServiceServicer):
    async def RouteTurn(self, request, context):  # type: ignore[no-untyped-def]
        events = [
            TE.TurnEvent(progress=TE.Progress(stage="classified", detail="high confidence: cosine=0.862")),
            TE.TurnEvent(
                sources=TE.Sources(
                    sources=[
                        TE.Source(title="Riigi Teataja", url="https://www.riigiteataja.ee/akt/1"),
                        TE.Source(title="Not a link", url="javascript:alert(1)"),
                    ]
                )
            ),
            TE.TurnEvent(token=TE.Token(text="Ответ ", kind=TE.TOKEN_KIND_ANSWER)),
            TE.TurnEvent(token=TE.Token(text="готов.", kind=TE.TOKEN_KIND_ANSWER)),
            TE.TurnEvent(end=TE.End(outcome=TE.TURN_OUTCOME_ANSWERED)),
        ]
        for event in events:
            yield classifier_pb2.RouteTurnResponse(event=event)


@pytest.fixture()
async def edge_url() -> AsyncIterator[str]:
    server = grpc.aio.server()
    classifier_pb2_grpc.add_ClassifierServiceServicer_to_server(SourcesClassifier(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    settings = EdgeSettings(port=0, classifier_target=f"127.0.0.1:{port}", indexer_target=f"127.0.0.1:{port}")
    try:
        async with serve_asgi(create_app(settings)) as url:
            yield url
    finally:
        await server.stop(0)


async def test_sources_are_links_and_routing_stays_hidden(edge_url: str, tmp_path: Path) -> None:
    assert CHROMIUM is not None
    async with chromium_page(CHROMIUM, tmp_path / "profile") as page:
        await page.navigate(edge_url)
        await page.evaluate(
            "const s = document.getElementById('language'); s.value = 'ru';"
            "s.dispatchEvent(new Event('change'))"
        )
        assert await page.evaluate("document.getElementById('send').textContent") == "Отправить"
        assert await page.evaluate("document.getElementById('input').placeholder") == "Задайте вопрос…"
        await page.type_into("#input", "Где закон?")
        await page.evaluate("document.getElementById('send').click()")
        await page.wait_for(
            "!document.getElementById('input').disabled && !!document.querySelector('.sources')"
        )
        assert await page.evaluate("document.querySelector('.msg.bot .text').textContent") == "Ответ готов."
        links = await page.evaluate(
            "Array.from(document.querySelectorAll('.sources a')).map(a => [a.textContent, a.href, a.rel])"
        )
        assert links == [["Riigi Teataja", "https://www.riigiteataja.ee/akt/1", "noopener noreferrer"]]
        items = await page.evaluate(
            "Array.from(document.querySelectorAll('.sources li')).map(e => e.textContent)"
        )
        assert items == ["Riigi Teataja", "Not a link"]
        assert await page.evaluate("document.querySelector('.sources h2').textContent") == "Источники"
        visible = await page.evaluate("document.getElementById('messages').innerText")
        assert "cosine" not in visible and "classified" not in visible
        await page.screenshot(tmp_path / "sources-ru.png")
