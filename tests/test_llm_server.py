"""The scripted model server speaks the OpenAI chat API well enough for DSPy through
litellm: plain answers, streamed answers, HTTP errors, and calls it did not expect."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.llm_server import ScriptedModel, dspy_fields


@pytest.fixture()
async def model(tmp_path: Path) -> AsyncIterator[ScriptedModel]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("DSPY_CACHEDIR", str(tmp_path / "dspy-cache"))
    async with ScriptedModel() as server:
        yield server


def _lm(model: ScriptedModel):  # type: ignore[no-untyped-def]
    import dspy

    return dspy.LM(
        "openai/scripted",
        api_base=model.api_base,
        api_key="test",
        engine="litellm",
        cache=False,
        num_retries=0,
    )


async def test_a_dspy_step_reads_the_scripted_reply_over_http(model: ScriptedModel) -> None:
    import dspy

    model.reply(when="What is the capital", text=dspy_fields(answer="Tallinn"))
    predict = dspy.Predict("question -> answer")
    with dspy.context(lm=_lm(model)):
        result = await predict.acall(question="What is the capital of Estonia?")
    assert result.answer == "Tallinn"
    assert model.calls == 1
    assert "What is the capital of Estonia?" in model.received[0].prompt


async def test_a_streamed_reply_arrives_in_chunks_before_it_is_complete(model: ScriptedModel) -> None:
    import dspy

    text = "Eesti pealinn on Tallinn. See asub Harjumaal."
    model.reply(text=dspy_fields(answer=text), stream=True, chunk_chars=5)
    program = dspy.streamify(
        dspy.Predict("question -> answer"),
        stream_listeners=[dspy.streaming.StreamListener(signature_field_name="answer")],
    )
    pieces: list[str] = []
    final = None
    with dspy.context(lm=_lm(model)):
        async for item in program(question="Mis on Eesti pealinn?"):
            if isinstance(item, dspy.streaming.StreamResponse):
                pieces.append(item.chunk)
            elif isinstance(item, dspy.Prediction):
                final = item
    assert final is not None and final.answer == text
    assert len(pieces) > 1, "the answer came in one piece: nothing was streamed"
    assert "".join(pieces).strip() == text
    assert model.received[0].stream


async def test_an_http_error_reaches_the_caller_as_an_error(model: ScriptedModel) -> None:
    import dspy

    model.reply(status=429)
    with dspy.context(lm=_lm(model)), pytest.raises(Exception, match=r"429|RateLimit|rate"):
        await dspy.Predict("question -> answer").acall(question="anything")


async def test_an_unscripted_call_is_refused_so_a_test_sees_it(model: ScriptedModel) -> None:
    import dspy

    with dspy.context(lm=_lm(model)), pytest.raises(Exception, match=r"no scripted reply|500|Internal"):
        await dspy.Predict("question -> answer").acall(question="unexpected")
    assert model.calls == 1
