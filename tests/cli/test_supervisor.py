"""devtools.supervisor with tiny real child processes."""

from __future__ import annotations

import asyncio
import os

import httpx
import pytest

from devtools.supervisor import ChildStartError, RestartPolicy, Supervisor


async def test_starts_in_order_and_stops_in_reverse(children, tmp_path) -> None:
    specs = [children.spec("alpha"), children.spec("beta")]
    supervisor = Supervisor(specs, tmp_path / "logs")
    ready: list[str] = []
    await supervisor.start_all(on_ready=lambda spec: ready.append(spec.name))
    try:
        assert ready == ["alpha", "beta"]
        async with httpx.AsyncClient() as client:
            assert [(await client.get(spec.address)).text for spec in specs] == ["alpha", "beta"]
        assert "alpha serving" in (tmp_path / "logs" / "alpha.log").read_text()
    finally:
        codes = await supervisor.stop(timeout=10)
    assert children.terminated() == ["beta", "alpha"]
    assert codes == {"beta": 0, "alpha": 0}
    assert supervisor.pids == {}


async def test_reports_the_child_that_dies(children, tmp_path) -> None:
    supervisor = Supervisor([children.spec("steady"), children.spec("fragile", "die")], tmp_path / "logs")
    await supervisor.start_all()
    try:
        children.make_die()
        exited = await asyncio.wait_for(supervisor.wait_for_exit(), 20)
        assert (exited.name, exited.returncode) == ("fragile", 3)
        assert exited.log_path == tmp_path / "logs" / "fragile.log"
    finally:
        await supervisor.stop(timeout=10)
    assert children.terminated() == ["steady"]


async def test_child_exiting_before_ready_names_it_with_its_log_and_stops_the_others(
    children, tmp_path
) -> None:
    supervisor = Supervisor([children.spec("first"), children.spec("broken", "crash")], tmp_path / "logs")
    with pytest.raises(ChildStartError) as failure:
        await supervisor.start_all()
    error = failure.value
    assert error.name == "broken"
    assert "exited with code 2" in str(error)
    assert "broken: missing config" in error.log_tail
    assert children.terminated() == ["first"]
    assert supervisor.pids == {}


async def test_readiness_timeout_names_the_child_and_shows_its_log(children, tmp_path) -> None:
    supervisor = Supervisor([children.spec("sleepy", "never-ready", ready_timeout=1)], tmp_path / "logs")
    with pytest.raises(ChildStartError) as failure:
        await supervisor.start_all()
    assert failure.value.name == "sleepy"
    assert "was not ready after 1 s" in str(failure.value)
    assert "sleepy booting" in failure.value.log_tail
    assert children.terminated() == ["sleepy"]


async def test_child_ignoring_sigterm_is_killed_after_the_timeout(children, tmp_path) -> None:
    supervisor = Supervisor([children.spec("stubborn", "stubborn")], tmp_path / "logs")
    await supervisor.start_all()
    pid = supervisor.pids["stubborn"]
    codes = await supervisor.stop(timeout=1)
    assert codes == {"stubborn": -9}
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_child_names_must_be_unique(children, tmp_path) -> None:
    with pytest.raises(ValueError, match="unique"):
        Supervisor([children.spec("twin"), children.spec("twin")], tmp_path)


class Backoffs:
    """The supervisor's sleep: records each backoff and returns at once."""

    def __init__(self) -> None:
        self.waited: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waited.append(seconds)
        await asyncio.sleep(0)


async def test_restarts_a_child_that_dies_while_the_others_keep_serving(children, tmp_path) -> None:
    policy = RestartPolicy(initial_backoff=2, max_restarts=3)
    backoffs = Backoffs()
    supervisor = Supervisor(
        [children.spec("steady"), children.spec("fragile", "die-once")],
        tmp_path / "logs",
        restart=policy,
        sleep=backoffs,
    )
    await supervisor.start_all()
    before = supervisor.pids
    events: list[str] = []
    restarted = asyncio.Event()

    def on_event(line: str) -> None:
        events.append(line)
        if line == "fragile restarted and ready":
            restarted.set()

    watching = asyncio.create_task(supervisor.supervise(on_event))
    try:
        children.make_die()
        await asyncio.wait_for(restarted.wait(), 30)
        after = supervisor.pids
        assert after["steady"] == before["steady"]
        assert after["fragile"] != before["fragile"]
        assert events[0] == "fragile exited with code 3; restarting in 2 s"
        assert backoffs.waited == [2.0]
        # The restart appends to the log: the crash before it is still there.
        assert (tmp_path / "logs" / "fragile.log").read_text().count("fragile booting") == 2
        assert not watching.done()
    finally:
        watching.cancel()
        await supervisor.stop(timeout=10)
    assert children.terminated() == ["fragile", "steady"]


async def test_gives_up_on_a_child_that_keeps_dying(children, tmp_path) -> None:
    policy = RestartPolicy(initial_backoff=1, max_restarts=2)
    backoffs = Backoffs()
    supervisor = Supervisor(
        [children.spec("steady"), children.spec("fragile", "die", ready_timeout=10)],
        tmp_path / "logs",
        restart=policy,
        sleep=backoffs,
    )
    await supervisor.start_all()
    events: list[str] = []
    try:
        children.make_die()
        gave_up = await asyncio.wait_for(supervisor.supervise(events.append), 60)
        assert gave_up.name == "fragile"
        assert [e for e in events if "restarting" in e] == [
            "fragile exited with code 3; restarting in 1 s",
            "fragile exited with code 3; restarting in 2 s",
        ]
        assert backoffs.waited == [1.0, 2.0]
    finally:
        await supervisor.stop(timeout=10)


def test_backoff_doubles_up_to_its_cap() -> None:
    policy = RestartPolicy(initial_backoff=0.5, max_backoff=3)
    assert [policy.delay(n) for n in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
