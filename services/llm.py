"""LLM adapter: settings for one chat model and a DSPy LM built from them, and the count
of model calls per turn.

dspy (≈ 1.3 s) and litellm (≈ 5 s) are imported only when a model is configured.

Counting: every LM a service builds carries a DSPy callback that counts each call as it
is sent into the turn's `LlmCalls` (a context variable each RPC opens with
`counting_llm_calls()`; worker threads started with `asyncio.to_thread` see the same
counter) and, when it ends, as `llm_calls{outcome}`. End.llm_calls is that count plus
what the hops below reported, so it is the number of requests the model received for
the turn: retries are off and the DSPy cache is off unless configured (`LLMConfig.cache`;
with it on, an answer from the cache is counted as a call too).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from services.runtime.telemetry import DomainMetrics

if TYPE_CHECKING:
    import dspy
    from dspy.utils.callback import BaseCallback

DEFAULT_DSPY_CACHE_DIR = ".atc/dspy-cache"


class LLMConfig(BaseModel):
    """`model` None or empty → no LLM: every step takes its deterministic path."""

    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, gt=0)
    # One request's limit: a model slower than this fails the step, which then takes its
    # deterministic path (a turn never waits on a stuck model for longer).
    timeout_seconds: float = Field(default=20.0, gt=0)
    # Retries would multiply a slow failure inside one turn's deadline; the deterministic
    # path is the retry. Each retry is a request the model receives (and is counted).
    num_retries: int = Field(default=0, ge=0)
    # DSPy's response cache (in DSPY_CACHEDIR): off, since prompts carry one citizen's
    # question and data and "today".
    cache: bool = False

    @property
    def enabled(self) -> bool:
        return bool(self.model)


def prepare_llm_environment(cache_dir: str | Path = DEFAULT_DSPY_CACHE_DIR) -> None:
    """Must run before dspy/litellm are imported: litellm otherwise fetches a price map
    from the network at first use, and DSPy would cache under the home folder."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("DSPY_CACHEDIR", str(Path(cache_dir).resolve()))


class LlmCalls:
    """Model calls made within one scope (a turn's RPC, a step). Calls counted in a nested
    scope count in the scopes around it too. Thread-safe: steps run in worker threads."""

    def __init__(self, parent: LlmCalls | None = None) -> None:
        self._parent = parent
        self._count = 0
        self._lock = threading.Lock()

    @property
    def count(self) -> int:
        return self._count

    def add(self, calls: int = 1) -> None:
        """`calls` more: made here, or reported by a service this one called."""
        if calls <= 0:
            return
        with self._lock:
            self._count += calls
        if self._parent is not None:
            self._parent.add(calls)


_TURN_CALLS: contextvars.ContextVar[LlmCalls | None] = contextvars.ContextVar("atc_llm_calls", default=None)


@contextlib.contextmanager
def counting_llm_calls() -> Iterator[LlmCalls]:
    """A scope whose model calls are counted (nested in the current one, if any)."""
    calls = LlmCalls(_TURN_CALLS.get())
    token = _TURN_CALLS.set(calls)
    try:
        yield calls
    finally:
        # An async generator closed from another context (cancelled at shutdown) cannot
        # reset its token; that context is going away anyway.
        with contextlib.suppress(ValueError):
            _TURN_CALLS.reset(token)


def current_llm_calls() -> LlmCalls | None:
    return _TURN_CALLS.get()


def record_llm_call(calls: int = 1) -> None:
    """Count `calls` into the current scope (none open: nothing to count into)."""
    scope = _TURN_CALLS.get()
    if scope is not None:
        scope.add(calls)


def llm_call_counter(metrics: DomainMetrics | None = None) -> BaseCallback:
    """A DSPy callback counting every LM call into the turn (`counting_llm_calls`) and, with
    `metrics`, as `llm_calls{outcome: ok|error}` (divided by the turns, the LLM calls per
    turn). Needs dspy: only built when a model is configured."""
    from dspy.utils.callback import BaseCallback

    class LlmCallCounter(BaseCallback):
        def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
            # Counted when it is sent: a call the turn gave up on (its deadline passed,
            # the citizen left) was still received by the model.
            record_llm_call()

        def on_lm_end(
            self, call_id: str, outputs: dict[str, Any] | None, exception: BaseException | None = None
        ) -> None:
            if metrics is not None:
                metrics.increment("llm_calls", outcome="error" if exception is not None else "ok")

    return LlmCallCounter()


def counted(lm: Any) -> Any:
    """`lm` with the per-turn counter attached when it has none (an LM built elsewhere,
    such as a test's), so every step's calls reach End.llm_calls whoever built it."""
    callbacks = list(getattr(lm, "callbacks", None) or [])
    if not any(type(callback).__name__ == "LlmCallCounter" for callback in callbacks):
        lm.callbacks = [*callbacks, llm_call_counter()]
    return lm


def build_lm(
    config: LLMConfig,
    *,
    cache_dir: str | Path = DEFAULT_DSPY_CACHE_DIR,
    telemetry: DomainMetrics | None = None,
) -> dspy.LM | None:
    """The service's LM, or None without a model; its calls are counted on `telemetry`."""
    if not config.enabled:
        return None
    prepare_llm_environment(cache_dir)
    import dspy

    # dspy imports litellm (≈ 5 s) at the first call: import it at start instead, so the
    # first citizen's turn does not spend its model deadline on an import.
    import litellm  # noqa: F401

    # engine="litellm": DSPy's default engine sends max_completion_tokens, which some
    # OpenAI-compatible servers ignore (a call then runs to the context limit).
    kwargs: dict[str, object] = {}
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key:
        kwargs["api_key"] = config.api_key
    return dspy.LM(
        config.model or "",
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        engine="litellm",
        callbacks=[llm_call_counter(telemetry)],
        timeout=config.timeout_seconds,
        num_retries=config.num_retries,
        cache=config.cache,
        **kwargs,
    )
