"""Run by tests/test_deploy.py with the tools venv's python (xds-protos lives there).

Parses an Envoy bootstrap YAML into envoy.config.bootstrap.v3.Bootstrap, with every
typed_config it uses unpacked into its own proto (an unknown field or a wrong type
fails), and prints a JSON summary of what the tests check as its last line.
"""

from __future__ import annotations

import json
import sys

import yaml
from envoy.config.bootstrap.v3 import bootstrap_pb2

# Every typed_config type the bootstrap may use must be imported to be resolvable.
from envoy.extensions.filters.http.health_check.v3 import health_check_pb2  # noqa: F401
from envoy.extensions.filters.http.router.v3 import router_pb2  # noqa: F401
from envoy.extensions.filters.network.http_connection_manager.v3 import http_connection_manager_pb2 as hcm
from envoy.extensions.upstreams.http.v3 import http_protocol_options_pb2  # noqa: F401
from google.protobuf import json_format


def seconds(duration) -> float:  # type: ignore[no-untyped-def]
    return duration.seconds + duration.nanos / 1e9


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    bootstrap = json_format.ParseDict(data, bootstrap_pb2.Bootstrap())
    listeners = {}
    for listener in bootstrap.static_resources.listeners:
        manager = hcm.HttpConnectionManager()
        (chain,) = listener.filter_chains
        (network_filter,) = chain.filters
        assert network_filter.typed_config.Unpack(manager), listener.name
        # Unpack every HTTP filter's typed_config too (an unregistered type raises).
        for http_filter in manager.http_filters:
            json_format.MessageToDict(http_filter)
        routes = []
        for host in manager.route_config.virtual_hosts:
            for route in host.routes:
                match = route.match.path or route.match.prefix
                routes.append(
                    {
                        "match": match,
                        "exact": bool(route.match.path),
                        "cluster": route.route.cluster,
                        "timeout": seconds(route.route.timeout) if route.HasField("route") else None,
                        # None: not set on the route (the connection manager's stream idle applies).
                        "idle_timeout": seconds(route.route.idle_timeout)
                        if route.HasField("route") and route.route.HasField("idle_timeout")
                        else None,
                        "retry_on": route.route.retry_policy.retry_on if route.HasField("route") else "",
                        "direct_status": route.direct_response.status
                        if route.HasField("direct_response")
                        else None,
                    }
                )
        listeners[listener.name] = {
            "address": listener.address.socket_address.address,
            "port": listener.address.socket_address.port_value,
            "normalize_path": manager.normalize_path.value,
            "merge_slashes": manager.merge_slashes,
            "escaped_slashes": hcm.HttpConnectionManager.PathWithEscapedSlashesAction.Name(
                manager.path_with_escaped_slashes_action
            ),
            "request_timeout": seconds(manager.request_timeout),
            "stream_idle_timeout": seconds(manager.stream_idle_timeout),
            "http_filters": [f.name for f in manager.http_filters],
            "routes": routes,
        }
    summary = {
        "admin_address": bootstrap.admin.address.socket_address.address,
        "clusters": [c.name for c in bootstrap.static_resources.clusters],
        "listeners": listeners,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main(sys.argv[1])
