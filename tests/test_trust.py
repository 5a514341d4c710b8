"""Service-to-service trust (services.runtime.trust): the owner a call acts for is only
believed with the mesh's signed assertion, which every hop forwards unchanged; optional
mTLS from certificate files. Real gRPC servers and channels; an injected clock."""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from grpc_status import rpc_status

from atc.loop.v1 import loop_pb2, loop_pb2_grpc
from services.runtime.channels import open_channel
from services.runtime.owner import OWNER_HEADER, acting_owner, owner_metadata
from services.runtime.server import GrpcServer, ServiceMount
from services.runtime.status import error_info
from services.runtime.trust import (
    OWNER_TOKEN_HEADER,
    TLS_CA_ENV,
    TLS_CERT_ENV,
    TLS_KEY_ENV,
    OwnerTokens,
    use_tokens,
)

SECRET = b"a-mesh-secret-of-thirty-two-bytes!"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class OwnerEcho(loop_pb2_grpc.LoopServiceServicer):
    """GetSession answers with the owner the call acts for; RunTurn asks the next hop."""

    def __init__(self) -> None:
        self.next_hop: loop_pb2_grpc.LoopServiceStub | None = None

    async def GetSession(self, request, context):  # type: ignore[no-untyped-def]
        owner = acting_owner(request.owner_id)
        if self.next_hop is not None:
            # A hop forwards the assertion it was given (the channel's interceptor).
            relayed = await self.next_hop.GetSession(loop_pb2.GetSessionRequest(chat_id="relayed"))
            owner = f"{owner}>{relayed.session.chat_id}"
        return loop_pb2.GetSessionResponse(session=loop_pb2.Session(chat_id=owner))


@pytest.fixture()
def clock() -> Iterator[Clock]:
    moving = Clock()
    use_tokens(OwnerTokens(SECRET, ttl_seconds=60, clock=moving))
    try:
        yield moving
    finally:
        use_tokens()


async def serve(servicer: OwnerEcho) -> GrpcServer:
    mount = ServiceMount.of(
        loop_pb2, "LoopService", loop_pb2_grpc.add_LoopServiceServicer_to_server, servicer
    )
    server = GrpcServer([mount], grace_seconds=0)
    await server.start()
    return server


@pytest.fixture()
async def hops(clock: Clock) -> AsyncIterator[loop_pb2_grpc.LoopServiceStub]:
    """edge → first hop → second hop, the way a turn goes."""
    second = await serve(OwnerEcho())
    relay = OwnerEcho()
    first = await serve(relay)
    onward = open_channel(second.address)
    relay.next_hop = loop_pb2_grpc.LoopServiceStub(onward)
    channel = grpc.aio.insecure_channel(first.address)
    try:
        yield loop_pb2_grpc.LoopServiceStub(channel)
    finally:
        await channel.close()
        await onward.close()
        await first.stop(0)
        await second.stop(0)


async def owner_of(stub: loop_pb2_grpc.LoopServiceStub, metadata: tuple, owner_id: str = "") -> str:
    response = await stub.GetSession(
        loop_pb2.GetSessionRequest(chat_id="c", owner_id=owner_id), metadata=metadata
    )
    return response.session.chat_id


async def refusal(stub: loop_pb2_grpc.LoopServiceStub, metadata: tuple, owner_id: str = "") -> tuple:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await owner_of(stub, metadata, owner_id)
    return refused.value.code(), error_info(rpc_status.from_call(refused.value)).reason


async def test_a_signed_owner_is_believed_and_forwarded_by_every_hop(hops) -> None:
    signed = owner_metadata("anon:alice")
    assert {key for key, _ in signed} == {OWNER_HEADER, OWNER_TOKEN_HEADER}
    assert await owner_of(hops, signed, "anon:alice") == "anon:alice>anon:alice"


async def test_a_forged_or_bare_owner_is_refused(hops) -> None:
    token = dict(owner_metadata("anon:alice"))[OWNER_TOKEN_HEADER]
    forged = OwnerTokens(b"someone-elses-secret-32-bytes-long!").sign("anon:alice")
    cases = [
        # The bare assertion the issue found accepted.
        (((OWNER_HEADER, "anon:alice"),), grpc.StatusCode.UNAUTHENTICATED, "OWNER_NOT_SIGNED"),
        (
            ((OWNER_HEADER, "anon:alice"), (OWNER_TOKEN_HEADER, forged)),
            grpc.StatusCode.UNAUTHENTICATED,
            "OWNER_NOT_SIGNED",
        ),
        (
            ((OWNER_HEADER, "anon:alice"), (OWNER_TOKEN_HEADER, "v1.x.y")),
            grpc.StatusCode.UNAUTHENTICATED,
            "OWNER_NOT_SIGNED",
        ),
        # Alice's assertion does not make anyone else Alice.
        (
            ((OWNER_HEADER, "anon:mallory"), (OWNER_TOKEN_HEADER, token)),
            grpc.StatusCode.PERMISSION_DENIED,
            "OWNER_MISMATCH",
        ),
    ]
    for metadata, code, reason in cases:
        assert await refusal(hops, metadata) == (code, reason), metadata
    # No metadata at all: the body's owner is not believed either.
    assert await refusal(hops, (), "anon:alice") == (grpc.StatusCode.UNAUTHENTICATED, "OWNER_NOT_SIGNED")
    # ... but a call for no owner (an operator's health or catalogue call) still works.
    assert await owner_of(hops, ()) == ">"


async def test_an_assertion_expires(hops, clock: Clock) -> None:
    signed = owner_metadata("user:bob")
    assert await owner_of(hops, signed) == "user:bob>user:bob"
    clock.now += 61
    assert await refusal(hops, signed) == (grpc.StatusCode.UNAUTHENTICATED, "OWNER_TOKEN_EXPIRED")


def test_tokens_do_not_verify_under_another_secret() -> None:
    mine = OwnerTokens(SECRET)
    with pytest.raises(ValueError):
        OwnerTokens(b"short")
    token = mine.sign("user:x")
    assert mine.verify(token) == "user:x"
    tampered = token.split(".")
    tampered[1] = tampered[1][:-2] + ("AA" if tampered[1][-2:] != "AA" else "BB")
    with pytest.raises(Exception, match="not signed"):
        mine.verify(".".join(tampered))


# --- mTLS ------------------------------------------------------------------------------


def _certificates(folder: Path) -> dict[str, Path]:
    """A CA and one certificate it signs for 127.0.0.1/localhost (server and client)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "atc-test-ca")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "atc-mesh")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    files = {"ca": folder / "ca.crt", "cert": folder / "tls.crt", "key": folder / "tls.key"}
    files["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files["key"].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return files


async def test_mtls_from_certificate_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _certificates(tmp_path)
    monkeypatch.setenv(TLS_CERT_ENV, str(files["cert"]))
    monkeypatch.setenv(TLS_KEY_ENV, str(files["key"]))
    monkeypatch.setenv(TLS_CA_ENV, str(files["ca"]))
    server = await serve(OwnerEcho())
    try:
        async with open_channel(server.address) as channel:
            assert await owner_of(loop_pb2_grpc.LoopServiceStub(channel), ()) == ""
        # A plaintext client gets nowhere.
        async with grpc.aio.insecure_channel(server.address) as plain:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await loop_pb2_grpc.LoopServiceStub(plain).GetSession(loop_pb2.GetSessionRequest(), timeout=5)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        # Nor a TLS client without a certificate of the mesh's CA.
        anonymous = grpc.ssl_channel_credentials(root_certificates=files["ca"].read_bytes())
        async with grpc.aio.secure_channel(server.address, anonymous) as no_cert:
            with pytest.raises(grpc.aio.AioRpcError):
                await loop_pb2_grpc.LoopServiceStub(no_cert).GetSession(
                    loop_pb2.GetSessionRequest(), timeout=5
                )
    finally:
        await server.stop(0)
