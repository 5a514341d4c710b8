"""A minimal Chrome DevTools protocol driver for headless Debian Chromium (no
browser download, no playwright): start the browser, open a page, evaluate
JavaScript, type, wait for a condition, take a screenshot."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
_LISTENING = re.compile(rb"DevTools listening on (ws://\S+)")


def chromium_path() -> str | None:
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


class Page:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._ids = itertools.count(1)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        message_id = next(self._ids)
        await self._ws.send_json({"id": message_id, "method": method, "params": params})
        async for message in self._ws:
            data = json.loads(message.data)
            if data.get("id") == message_id:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                return data.get("result", {})
        raise RuntimeError("the browser closed the connection")

    async def evaluate(self, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, *, timeout: float = 60.0) -> Any:
        """Polls `expression` until it is truthy (the page streams; nothing here is timed)."""
        async with asyncio.timeout(timeout):
            while True:
                value = await self.evaluate(expression)
                if value:
                    return value
                await asyncio.sleep(0.1)

    async def navigate(self, url: str) -> None:
        await self.send("Page.navigate", url=url)
        await self.wait_for("document.readyState === 'complete' && !!document.getElementById('input')")

    async def reload(self) -> None:
        await self.evaluate("window.__beforeReload = true")
        await self.send("Page.reload", ignoreCache=True)
        await self.wait_for(
            "!window.__beforeReload && document.readyState === 'complete'"
            " && !!document.getElementById('input')"
        )

    async def type_into(self, selector: str, text: str) -> None:
        await self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        await self.send("Input.insertText", text=text)

    async def screenshot(self, path: Path) -> Path:
        shot = await self.send("Page.captureScreenshot", format="png")
        await asyncio.to_thread(path.write_bytes, base64.b64decode(shot["data"]))
        return path


@contextlib.asynccontextmanager
async def chromium_page(executable: str, profile_dir: Path) -> AsyncIterator[Page]:
    process = await asyncio.create_subprocess_exec(
        executable,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-dev-shm-usage",
        "--no-first-run",
        f"--user-data-dir={profile_dir}",
        "--remote-debugging-port=0",
        "--window-size=1000,1000",
        "about:blank",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        async with asyncio.timeout(60):
            while True:
                line = await process.stderr.readline()
                if not line:
                    raise RuntimeError("chromium exited before it listened")
                found = _LISTENING.search(line)
                if found:
                    break
        browser_ws = found.group(1).decode()
        http_base = "http://" + browser_ws.split("/")[2]
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{http_base}/json/list") as response:
                targets = await response.json()
            page_ws = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            async with session.ws_connect(page_ws, max_msg_size=64 * 1024 * 1024) as ws:
                page = Page(ws)
                await page.send("Page.enable")
                await page.send("Runtime.enable")
                yield page
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                async with asyncio.timeout(10):
                    await process.wait()
            except TimeoutError:
                process.kill()
                await process.wait()
