"""The gRPC health check of a mesh service under mTLS, for the kubelet's exec probes.

The kubelet's own `grpc` probe speaks plaintext and presents no client certificate, so a
server that requires one (components/mtls) would never look ready. With this component
every gRPC service is probed by this script instead: grpc.health.v1 Check on 127.0.0.1
with the pod's own certificate (the files ATC_MESH_TLS_* name, read by the services' own
code), the server verified against the mesh CA under the name its certificate is for.

    python /etc/atc-probe/health_probe.py PORT NAME [SERVICE]

Exit status 0 when SERVING; 1 otherwise (NOT_SERVING, no answer within the timeout, a
refused handshake), with the reason on stderr for `kubectl describe pod`.
"""

from __future__ import annotations

import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.runtime.trust import TlsFiles

TIMEOUT_SECONDS = 3.0


def check(port: int, name: str, service: str = "") -> str:
    """The health status name of `service` on this pod's `port`, or the failure's code."""
    tls = TlsFiles.from_env()
    if tls is None:
        return "NO_MESH_CERTIFICATE"
    options = [("grpc.ssl_target_name_override", name)]
    with grpc.secure_channel(f"127.0.0.1:{port}", tls.channel_credentials(), options=options) as channel:
        try:
            response = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT_SECONDS
            )
        except grpc.RpcError as exc:
            return exc.code().name
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4) or not argv[1].isdigit():
        print("usage: health_probe.py PORT NAME [SERVICE]", file=sys.stderr)
        return 2
    status = check(int(argv[1]), argv[2], argv[3] if len(argv) == 4 else "")
    if status != "SERVING":
        print(f"health check on port {argv[1]}: {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
