"""The chat page in a real headless Chromium against the whole mesh: the holidays
question in Estonian, the clarifying question, the streamed answer, a reload that
keeps the conversation, the debug toggle and a screenshot in the test's folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e.cdp import chromium_page, chromium_path
from tests.e2e.conftest import Mesh

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(
        # In CI (`make test` installs chromium) a missing browser is a failure, not a skip.
        CHROMIUM is None and not os.environ.get("CI"),
        reason="chromium is not installed (make test installs it with apt-get)",
    ),
]

IDLE = "!document.getElementById('input').disabled"
BOT_TEXTS = "Array.from(document.querySelectorAll('.msg.bot .text')).map(e => e.textContent)"


async def test_holidays_in_estonian_in_a_real_browser(mesh: Mesh, tmp_path: Path) -> None:
    assert CHROMIUM is not None
    async with chromium_page(CHROMIUM, tmp_path / "profile") as page:
        await page.navigate(mesh.edge_url)
        # The language switcher relabels the page.
        await page.evaluate(
            "const s = document.getElementById('language'); s.value = 'et';"
            "s.dispatchEvent(new Event('change'))"
        )
        assert await page.evaluate("document.documentElement.lang") == "et"
        assert await page.evaluate("document.getElementById('send').textContent") == "Saada"
        assert await page.evaluate("document.getElementById('new-chat').textContent") == "Uus vestlus"

        await page.type_into("#input", "Millised on Eesti riigipühad?")
        await page.evaluate("document.getElementById('send').click()")
        await page.wait_for(f"{IDLE} && document.querySelectorAll('.msg.bot').length === 1")
        (question,) = await page.evaluate(BOT_TEXTS)
        assert "kuupäev" in question.lower() or "periood" in question.lower(), question
        assert await page.evaluate("document.querySelector('.msg.bot').classList.contains('question')")

        await page.type_into("#input", "2026-01-01 kuni 2026-12-31")
        await page.evaluate("document.getElementById('send').click()")
        await page.wait_for(f"{IDLE} && document.querySelectorAll('.msg.bot').length === 2")
        answer = (await page.evaluate(BOT_TEXTS))[1]
        assert answer.startswith("Riigipühad — Eesti, 2026"), answer
        # Each holiday with its day of the week: "uusaasta — neljapäev, 1. jaanuar 2026".
        assert "uusaasta — neljapäev, 1. jaanuar 2026" in answer
        assert "New Year" not in answer

        # Routing details stay hidden unless the debug toggle is on.
        details_visible = (
            "Array.from(document.querySelectorAll('.details'))"
            ".some(e => getComputedStyle(e).display !== 'none')"
        )
        assert await page.evaluate("document.querySelectorAll('.details').length") > 0
        assert not await page.evaluate(details_visible)
        assert "cosine" not in await page.evaluate("document.getElementById('messages').innerText")
        await page.evaluate("document.getElementById('debug').click()")
        assert await page.evaluate(details_visible)
        await page.evaluate("document.getElementById('debug').click()")

        shot = await page.screenshot(tmp_path / "holidays-et.png")
        assert shot.stat().st_size > 10_000

        # A reload keeps the whole visible conversation (sessionStorage).
        await page.reload()
        after = await page.evaluate(BOT_TEXTS)
        assert after == [question, answer]
        stored = json.loads(await page.evaluate("sessionStorage.getItem('atc.conversation')"))
        assert [e["role"] for e in stored] == ["user", "bot", "user", "bot"]

        # New chat: a fresh chat id and an empty conversation.
        old_id = await page.evaluate("sessionStorage.getItem('atc.chatId')")
        await page.evaluate("document.getElementById('new-chat').click()")
        assert await page.evaluate("document.querySelectorAll('.msg').length") == 0
        assert await page.evaluate("sessionStorage.getItem('atc.chatId')") != old_id
