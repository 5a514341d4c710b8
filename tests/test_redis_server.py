from devtools.redis_server import EmbeddedRedis


async def test_embedded_redis_answers(redis_client):
    await redis_client.set("k", "v", ex=5)
    assert await redis_client.get("k") == "v"
    assert 0 < await redis_client.ttl("k") <= 5


def test_embedded_redis_stops_cleanly():
    server = EmbeddedRedis().start()
    port = server.port
    server.stop()
    # The port is free again: a second server can take it.
    with EmbeddedRedis(port=port) as again:
        assert again.port == port
