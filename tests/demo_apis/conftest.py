from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from devtools.demo_apis.app import create_app


@pytest.fixture()
async def demo_client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        yield client
