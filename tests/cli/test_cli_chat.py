"""`atc chat` against a stand-in ClassifierService, stdin piped."""

from __future__ import annotations

import asyncio
import sys

from atc.common.v1 import chat_pb2


async def _chat(address: str, stdin: bytes, *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "devtools.cli",
        "chat",
        "--target",
        address,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(stdin), 60)
    return int(process.returncode or 0), stdout.decode(), stderr.decode()


async def test_chat_prints_streamed_tokens_and_new_starts_a_new_chat(chat_server) -> None:
    code, out, err = await _chat(
        chat_server.address,
        b"tere hommikust\n\nwhich country?\n/new\nthird one\n/quit\nnever sent\n",
        "--lang",
        "et",
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines == [
        "bot> echo#1:  tere hommikust ",
        "bot> echo#2:  which country? ",
        "bot> echo#3:  third one ",
    ]
    turns = chat_server.servicer.turns
    assert [t.message for t in turns] == ["tere hommikust", "which country?", "third one"]
    assert turns[0].chat_id == turns[1].chat_id != turns[2].chat_id
    assert {t.language for t in turns} == {chat_pb2.LANGUAGE_ET}
    # The second turn carries the first exchange as history; the new chat starts empty.
    assert [(m.role, m.content) for m in turns[1].conversation_history] == [
        (chat_pb2.CHAT_ROLE_USER, "tere hommikust"),
        (chat_pb2.CHAT_ROLE_ASSISTANT, "echo#1:  tere hommikust "),
    ]
    assert list(turns[2].conversation_history) == []
    assert all(t.request_id for t in turns)
    assert f"[chat {turns[0].chat_id}]" in err and f"[chat {turns[2].chat_id}]" in err


async def test_chat_reports_an_unreachable_classifier_and_ends_at_eof() -> None:
    from devtools.redis_server import free_port

    code, out, err = await _chat(f"127.0.0.1:{free_port()}", b"hello\n", "--timeout", "5")
    assert code == 0
    assert out == ""
    assert "error:" in err and "UNAVAILABLE" in err
