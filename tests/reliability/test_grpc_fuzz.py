"""Fuzz of every gRPC request type: messages generated from each method's descriptor (random
strings, numbers, enums, lists and nested messages) and raw garbage bytes, against the real
services of an in-process mesh. Each call ends with a deliberate status, never UNKNOWN or
INTERNAL (an exception no handler turned into a status; garbage bytes used to come back
INTERNAL from grpc's own parsing, now INVALID_ARGUMENT)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atc.caller.v1 import caller_pb2
from atc.classifier.v1 import classifier_pb2
from atc.indexer.v1 import indexer_pb2
from atc.loop.v1 import loop_pb2
from devtools.launcher.inprocess import running_mesh
from devtools.redis_server import EmbeddedRedis

EXAMPLES_PER_METHOD = 40
# Ends a handler may choose; UNKNOWN and INTERNAL mean an exception escaped it.
DELIBERATE = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.OUT_OF_RANGE,
}
SERVERS = {
    caller_pb2: "caller",
    classifier_pb2: "classifier",
    indexer_pb2: "indexer",
    loop_pb2: "loop",
}
_TYPE = descriptor_pb2.FieldDescriptorProto
short_text = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["", "EE", "2026-01-01", "http://127.0.0.1:9/x", "GET", "get_national_holidays"]),
)


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind == _TYPE.TYPE_STRING:
        return short_text
    if kind == _TYPE.TYPE_BYTES:
        return st.binary(max_size=16)
    if kind == _TYPE.TYPE_BOOL:
        return st.booleans()
    if kind in (_TYPE.TYPE_FLOAT, _TYPE.TYPE_DOUBLE):
        return st.floats(allow_nan=False, width=32)
    if kind == _TYPE.TYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values]
        return st.sampled_from([*numbers, max(numbers) + 7])
    if kind in (_TYPE.TYPE_INT32, _TYPE.TYPE_SINT32, _TYPE.TYPE_SFIXED32):
        return st.integers(-(2**31), 2**31 - 1)
    if kind in (_TYPE.TYPE_UINT32, _TYPE.TYPE_FIXED32):
        return st.integers(0, 2**32 - 1)
    if kind in (_TYPE.TYPE_UINT64, _TYPE.TYPE_FIXED64):
        return st.integers(0, 2**64 - 1)
    return st.integers(-(2**63), 2**63 - 1)


def messages(descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Messages of `descriptor` with a random subset of fields set."""
    cls = GetMessageClass(descriptor)
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        if field.type == _TYPE.TYPE_MESSAGE:
            if depth >= 3 or field.message_type.full_name.startswith("google."):
                continue
            if field.message_type.GetOptions().map_entry:
                value_field = field.message_type.fields_by_name["value"]
                if value_field.type == _TYPE.TYPE_MESSAGE:
                    continue
                fields[field.name] = st.dictionaries(short_text, _scalar(value_field), max_size=3)
                continue
            inner = messages(field.message_type, depth + 1)
        else:
            inner = _scalar(field)
        is_repeated = field.is_repeated
        fields[field.name] = st.lists(inner, max_size=3) if is_repeated else inner

    def build(values: dict[str, Any]) -> Message:
        message = cls()
        for name, value in values.items():
            target = getattr(message, name) if hasattr(message, name) else None
            field = descriptor.fields_by_name[name]
            if field.type == _TYPE.TYPE_MESSAGE and not isinstance(value, dict):
                if isinstance(value, list):
                    for item in value:
                        target.add().CopyFrom(item)
                else:
                    getattr(message, name).CopyFrom(value)
            elif isinstance(value, dict):
                target.update(value)
            elif isinstance(value, list):
                target.extend(value)
            else:
                setattr(message, name, value)
        return message

    return st.fixed_dictionaries({}, optional=fields).map(build)


async def _call(
    channel: grpc.aio.Channel, path: str, response_cls: Any, streaming: bool, payload: bytes
) -> grpc.StatusCode:
    try:
        if streaming:
            async for _ in channel.unary_stream(path, bytes, response_cls.FromString)(payload, timeout=30):
                pass
        else:
            await channel.unary_unary(path, bytes, response_cls.FromString)(payload, timeout=30)
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def _methods() -> list[tuple[str, MethodDescriptor]]:
    found = []
    for module, server in SERVERS.items():
        for service in module.DESCRIPTOR.services_by_name.values():
            found += [(server, method) for method in service.methods]
    return found


def _fuzz_one_method(
    runner: asyncio.Runner, channel: grpc.aio.Channel, method: MethodDescriptor, seen: dict[str, set[Any]]
) -> None:
    path = f"/{method.containing_service.full_name}/{method.name}"
    response_cls = GetMessageClass(method.output_type)
    payloads = st.one_of(
        messages(method.input_type).map(lambda m: m.SerializeToString()), st.binary(max_size=40)
    )

    @settings(
        max_examples=EXAMPLES_PER_METHOD,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(payload=payloads)
    def check(payload: bytes) -> None:
        code = runner.run(_call(channel, path, response_cls, method.server_streaming, payload))
        seen.setdefault(path, set()).add(code)
        assert code in DELIBERATE, (path, code, payload)

    check()


def test_every_rpc_answers_generated_requests_with_a_deliberate_status() -> None:
    with asyncio.Runner() as runner, EmbeddedRedis() as redis, tempfile.TemporaryDirectory() as data_dir:
        mesh_context = running_mesh(redis.url, Path(data_dir))
        mesh = runner.run(mesh_context.__aenter__())
        channels = {name: grpc.aio.insecure_channel(mesh.address(name)) for name in set(SERVERS.values())}
        seen: dict[str, set[Any]] = {}
        try:
            for server, method in _methods():
                _fuzz_one_method(runner, channels[server], method, seen)
        finally:
            for channel in channels.values():
                runner.run(channel.close(None))
            runner.run(mesh_context.__aexit__(None, None, None))
    assert len(seen) == len(_methods())
    # Generated messages get past parsing and validation into the handlers, too.
    reached = [path for path, codes in seen.items() if codes - {grpc.StatusCode.INVALID_ARGUMENT}]
    assert len(reached) > len(seen) // 2, seen
