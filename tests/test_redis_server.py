import random
import socket

import pytest

from devtools.redis_server import EmbeddedRedis, ephemeral_port_floor, free_port, port_is_free


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


def test_free_port_is_chosen_below_the_ephemeral_range_where_clients_take_theirs():
    floor = ephemeral_port_floor()
    if floor is None:
        pytest.skip("no ephemeral port range on this system")
    ports = {free_port() for _ in range(20)}
    assert all(port < floor for port in ports)
    # An outgoing connection's local port comes from the range and never meets them.
    with socket.create_server(("127.0.0.1", 0)) as server:
        with socket.create_connection(server.getsockname()[:2]) as client:
            assert client.getsockname()[1] >= floor


def test_free_port_skips_a_port_that_is_taken():
    if ephemeral_port_floor() is None:
        pytest.skip("no ephemeral port range on this system")
    taken = free_port(rng=random.Random(7))
    with socket.create_server(("127.0.0.1", taken)):
        assert not port_is_free("127.0.0.1", taken)
        # The same seed draws the taken port first; the next draw is used instead.
        assert free_port(rng=random.Random(7)) != taken
