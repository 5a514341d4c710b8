"""OpenAPI 3 → endpoint bodies in the seed's indexing format.

Every operation becomes one endpoint: path, query and JSON-body parameters (top-level
properties of the request body schema) with their required flags, enums and
descriptions; local `$ref`s are resolved. Operations the caller cannot make (methods
other than GET and POST) are skipped with the reason, and a spec that is not OpenAPI 3
raises SpecError with a message a person can act on.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

import yaml

_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://atc-mesh/openapi")
_METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")
_SUPPORTED = frozenset({"get", "post"})
_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean", "string": "string"}


class SpecError(Exception):
    """The document is not an OpenAPI 3 spec this importer can read."""


@dataclass
class Conversion:
    endpoints: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"{len(self.endpoints)} endpoint(s) from the spec, {len(self.skipped)} operation(s) skipped"]
        lines += [f"  skipped: {operation}: {reason}" for operation, reason in self.skipped]
        return "\n".join(lines)


def load_spec(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
            raise SpecError(f"neither JSON nor YAML{where}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise SpecError("the spec must be a JSON/YAML object with 'openapi', 'info' and 'paths'")
    version = str(data.get("openapi", ""))
    if not version.startswith("3."):
        found = f"'swagger: {data['swagger']}' (OpenAPI 2)" if "swagger" in data else f"openapi={version!r}"
        raise SpecError(f"only OpenAPI 3.x is supported; found {found}")
    if not isinstance(data.get("paths"), dict) or not data["paths"]:
        raise SpecError("the spec has no 'paths'")
    return data


def snake_case(text: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    return re.sub(r"_+", "_", text) or "operation"


class _Resolver:
    def __init__(self, spec: dict[str, Any]) -> None:
        self._spec = spec

    def resolve(self, node: Any, depth: int = 0) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/") or depth > 20:
                raise SpecError(f"unsupported $ref {ref!r} (only local '#/...' references)")
            target: Any = self._spec
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, dict) or part not in target:
                    raise SpecError(f"$ref {ref!r} points at nothing")
                target = target[part]
            node = target
            depth += 1
        return node


def _param_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "string")
    if isinstance(kind, list):  # OpenAPI 3.1: ["string", "null"]
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "string" and schema.get("format") == "date":
        return "date"
    if kind == "string" and schema.get("format") == "date-time":
        return "datetime"
    return _TYPES.get(str(kind), "string")


def _param(name: str, schema: dict[str, Any], required: bool, description: str) -> dict[str, Any]:
    param: dict[str, Any] = {
        "name": name,
        "type": _param_type(schema),
        "required": required,
        "description": " ".join((description or schema.get("description") or "").split()),
    }
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        param["enum"] = [str(v) for v in enum if v is not None]
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        param["pattern"] = pattern
    return param


def _server_url(spec: dict[str, Any], operation: dict[str, Any], path_item: dict[str, Any], base: str) -> str:
    if base:
        return base.rstrip("/")
    for holder in (operation, path_item, spec):
        servers = holder.get("servers")
        if isinstance(servers, list) and servers and isinstance(servers[0], dict):
            url = str(servers[0].get("url", ""))
            for name, variable in (servers[0].get("variables") or {}).items():
                url = url.replace("{" + name + "}", str(variable.get("default", "")))
            return url.rstrip("/")
    return ""


def convert(spec: dict[str, Any], *, base_url: str = "") -> Conversion:
    resolver = _Resolver(spec)
    title = str((spec.get("info") or {}).get("title", "api"))
    result = Conversion()
    names: set[str] = set()
    for path, raw_item in spec["paths"].items():
        path_item = resolver.resolve(raw_item)
        if not isinstance(path_item, dict):
            result.skipped.append((str(path), "path item is not an object"))
            continue
        shared = path_item.get("parameters") or []
        for method in _METHODS:
            if method not in path_item:
                continue
            label = f"{method.upper()} {path}"
            if method not in _SUPPORTED:
                result.skipped.append((label, "only GET and POST operations can be called"))
                continue
            try:
                endpoint = _endpoint(spec, resolver, title, path, method, path_item, shared, base_url)
            except SpecError as exc:
                result.skipped.append((label, str(exc)))
                continue
            if endpoint["name"] in names:
                endpoint["name"] = snake_case(f"{endpoint['name']}_{method}_{path}")
            names.add(endpoint["name"])
            result.endpoints.append(endpoint)
    return result


def _endpoint(
    spec: dict[str, Any],
    resolver: _Resolver,
    title: str,
    path: str,
    method: str,
    path_item: dict[str, Any],
    shared: list[Any],
    base_url: str,
) -> dict[str, Any]:
    operation = resolver.resolve(path_item[method])
    if not isinstance(operation, dict):
        raise SpecError("operation is not an object")
    server = _server_url(spec, operation, path_item, base_url)
    if not re.match(r"^https?://", server):
        raise SpecError("no absolute http(s) server URL (add 'servers' to the spec or pass --base-url)")
    params: dict[tuple[str, str], dict[str, Any]] = {}
    for raw in [*shared, *(operation.get("parameters") or [])]:
        parameter = resolver.resolve(raw)
        if not isinstance(parameter, dict) or "name" not in parameter:
            raise SpecError("a parameter without a name")
        location = parameter.get("in", "query")
        if location not in ("path", "query"):
            continue  # headers and cookies are the caller's business, not the user's
        schema = resolver.resolve(parameter.get("schema") or {})
        required = bool(parameter.get("required")) or location == "path"
        params[(location, parameter["name"])] = _param(
            parameter["name"], schema, required, parameter.get("description", "")
        )
    body = resolver.resolve(operation.get("requestBody") or {})
    if body:
        content = body.get("content") or {}
        media = content.get("application/json") or next(iter(content.values()), None)
        schema = resolver.resolve((media or {}).get("schema") or {})
        properties = schema.get("properties") or {}
        required_names = set(schema.get("required") or [])
        for name, raw_schema in properties.items():
            prop = resolver.resolve(raw_schema)
            params[("body", name)] = _param(name, prop, name in required_names, prop.get("description", ""))
    operation_id = operation.get("operationId") or f"{method}_{path}"
    description = (
        " ".join(
            part.strip().rstrip(".") + "."
            for part in (operation.get("summary", ""), operation.get("description", ""))
            if isinstance(part, str) and part.strip()
        )
        or f"{method.upper()} {path} of {title}."
    )
    return {
        "endpointId": str(uuid.uuid5(_NAMESPACE, f"{title}|{method.upper()}|{path}")),
        "serviceId": "",
        "name": snake_case(str(operation_id)),
        "description": description,
        "method": method.upper(),
        "url": server + path,
        "visibility": "public",
        "type": "openapi",
        "params": list(params.values()),
    }
