"""LLM adapter: settings for one chat model and a DSPy LM built from them.

dspy (≈ 1.3 s) and litellm (≈ 5 s) are imported only when a model is configured.
"""

from __future__ import annotations

import os
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

    @property
    def enabled(self) -> bool:
        return bool(self.model)


def prepare_llm_environment(cache_dir: str | Path = DEFAULT_DSPY_CACHE_DIR) -> None:
    """Must run before dspy/litellm are imported: litellm otherwise fetches a price map
    from the network at first use, and DSPy would cache under the home folder."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("DSPY_CACHEDIR", str(Path(cache_dir).resolve()))


def llm_call_counter(metrics: DomainMetrics) -> BaseCallback:
    """A DSPy callback counting every LM call as `llm_calls{outcome: ok|error}` (divided by
    the turns, the LLM calls per turn). Needs dspy: only built when a model is configured."""
    from dspy.utils.callback import BaseCallback

    class LlmCallCounter(BaseCallback):
        def on_lm_end(
            self, call_id: str, outputs: dict[str, Any] | None, exception: BaseException | None = None
        ) -> None:
            metrics.increment("llm_calls", outcome="error" if exception is not None else "ok")

    return LlmCallCounter()


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
        callbacks=[llm_call_counter(telemetry)] if telemetry is not None else None,
        **kwargs,
    )
