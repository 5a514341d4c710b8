"""Kubernetes NetworkPolicy semantics over rendered manifests, for the tests: may a pod
with these labels, in this namespace, open a TCP connection to that pod on that port?
Both sides count (the source's egress policies and the destination's ingress ones), as
a CNI enforces them; label selectors (matchLabels, matchExpressions), named ports and
ipBlock peers are supported (an ipBlock never matches a pod: the tests' pods have no
addresses; `may_reach_address` asks about an address outside the cluster)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

Doc = dict[str, Any]


@dataclass(frozen=True)
class Pod:
    namespace: str
    labels: Mapping[str, str]
    # Container port name → number (for named ports in policies).
    ports: Mapping[str, int] = field(default_factory=dict)

    @property
    def namespace_labels(self) -> dict[str, str]:
        return {"kubernetes.io/metadata.name": self.namespace}


def pods_of(docs: Iterable[Doc], namespace: str = "atc") -> dict[str, Pod]:
    """Every workload's pod template, by workload name."""
    pods = {}
    for doc in docs:
        if doc["kind"] not in ("Deployment", "StatefulSet", "Job"):
            continue
        template = doc["spec"]["template"]
        ports = {
            p["name"]: p["containerPort"]
            for c in template["spec"]["containers"]
            for p in c.get("ports", [])
            if "name" in p
        }
        pods[doc["metadata"]["name"]] = Pod(
            doc["metadata"].get("namespace", namespace), template["metadata"].get("labels", {}), ports
        )
    return pods


def _expression_holds(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
    if operator == "In":
        return labels.get(key) in values
    if operator == "NotIn":
        return labels.get(key) not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    raise ValueError(f"unknown selector operator {operator}")


def _selects(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    if selector is None:
        return True
    return all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items()) and all(
        _expression_holds(e, labels) for e in selector.get("matchExpressions") or []
    )


def _peer_matches(peer: Mapping[str, Any], policy_namespace: str, other: Pod) -> bool:
    if "ipBlock" in peer:
        return False
    if "namespaceSelector" in peer:
        if not _selects(peer["namespaceSelector"], other.namespace_labels):
            return False
    elif other.namespace != policy_namespace:
        return False
    return _selects(peer.get("podSelector"), other.labels)


def _port_matches(rule_ports: list[Mapping[str, Any]] | None, destination: Pod, port: int) -> bool:
    if not rule_ports:
        return True
    for entry in rule_ports:
        if entry.get("protocol", "TCP") != "TCP":
            continue
        wanted = entry.get("port")
        if wanted is None:
            return True
        number = destination.ports.get(wanted) if isinstance(wanted, str) else wanted
        end = entry.get("endPort", number)
        if number is not None and number <= port <= end:
            return True
    return False


def _allowed(policies: list[Doc], pod: Pod, direction: str, other: Pod, destination: Pod, port: int) -> bool:
    kind = "Ingress" if direction == "ingress" else "Egress"
    peer_key = "from" if direction == "ingress" else "to"
    selecting = [
        p
        for p in policies
        if p["metadata"].get("namespace", "atc") == pod.namespace
        and _selects(p["spec"].get("podSelector", {}), pod.labels)
        and kind in p["spec"].get("policyTypes", ["Ingress"])
    ]
    if not selecting:
        return True
    for policy in selecting:
        for rule in policy["spec"].get(direction, []) or []:
            peers = rule.get(peer_key)
            peer_ok = not peers or any(
                _peer_matches(peer, policy["metadata"].get("namespace", "atc"), other) for peer in peers
            )
            if peer_ok and _port_matches(rule.get("ports"), destination, port):
                return True
    return False


def may_connect(docs: Iterable[Doc], source: Pod, destination: Pod, port: int | str) -> bool:
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    number = destination.ports[port] if isinstance(port, str) else port
    return _allowed(policies, source, "egress", destination, destination, number) and _allowed(
        policies, destination, "ingress", source, destination, number
    )


def _block_holds(block: Mapping[str, Any], address: str) -> bool:
    ip = ipaddress.ip_address(address)
    network = ipaddress.ip_network(block["cidr"])
    if ip.version != network.version or ip not in network:
        return False
    return not any(
        ip in ipaddress.ip_network(excluded)
        for excluded in block.get("except", [])
        if ipaddress.ip_network(excluded).version == ip.version
    )


def may_reach_address(docs: Iterable[Doc], source: Pod, address: str, port: int) -> bool:
    """May `source` open a TCP connection to `address` (outside the cluster: only its own
    egress policies count, by their ipBlock peers or rules with no peers) on `port`?"""
    outside = Pod("", {}, {})
    policies = [
        p
        for p in docs
        if p["kind"] == "NetworkPolicy"
        and p["metadata"].get("namespace", "atc") == source.namespace
        and _selects(p["spec"].get("podSelector", {}), source.labels)
        and "Egress" in p["spec"].get("policyTypes", ["Ingress"])
    ]
    if not policies:
        return True
    for policy in policies:
        for rule in policy["spec"].get("egress", []) or []:
            peers = rule.get("to")
            peer_ok = not peers or any(
                "ipBlock" in peer and _block_holds(peer["ipBlock"], address) for peer in peers
            )
            if peer_ok and _port_matches(rule.get("ports"), outside, port):
                return True
    return False
