"""Dialogues where the values a citizen gave were missed, asked again or wrongly
defaulted, read from a transcript file of `bench.eval_dialogues --transcripts FILE`.

A dialogue counts once, at its first turn (up to the first failing one) that is:
- `asked`: the reply should have answered from a capability, but asked for a value of
  that capability's endpoint instead (the value was in the message, or a default was due);
- `rejected`: the API refused a value and the same question came back ("did not accept");
- `wrong_value`: the capability's endpoint was called, but dates or numbers the answer
  needed are missing or ones it must not show appear (a wrong period, country or count).

    .venv/bin/python -m bench.value_misses /tmp/me/d.jsonl

Routing misses (another layer or endpoint answered) are left out: they are not values.
The last line is one JSON object: the figure (lower is better) by kind and language.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from bench.dialogue_judge import CAPABILITY_ENDPOINTS

_REJECTED = ("did not accept", "ei võtnud", "не принял")


def _kinds(expect: dict[str, Any]) -> set[str]:
    kind = expect.get("kind")
    return set(kind) if isinstance(kind, list) else {str(kind)}


def _endpoints(expect: dict[str, Any]) -> set[str]:
    capability = expect.get("capability") or []
    capabilities = capability if isinstance(capability, list) else [capability]
    return {e for c in capabilities for e in CAPABILITY_ENDPOINTS.get(c, ())}


def classify(case: dict[str, Any]) -> str | None:
    for turn in case["turns"]:
        expect = turn.get("expect") or {}
        endpoints = _endpoints(expect)
        kinds = _kinds(expect)
        why = " ".join(turn.get("why") or [])
        if any(marker in turn.get("reply", "") for marker in _REJECTED):
            return "rejected"
        if (
            endpoints
            and "ask" not in kinds
            and turn.get("outcome") == "needs_input"
            and endpoints & set(turn.get("asked_for") or [])
        ):
            return "asked"
        if (
            not turn.get("verdict")
            and endpoints & set(turn.get("called") or [])
            and ("date " in why or "number " in why or "time " in why)
        ):
            return "wrong_value"
        if not turn.get("verdict"):
            return None
    return None


def summarise(path: Path) -> dict[str, Any]:
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    kinds = Counter[str]()
    by_language = Counter[str]()
    ids: dict[str, list[str]] = {}
    for case in cases:
        kind = classify(case)
        if kind is not None:
            kinds[kind] += 1
            by_language[case["language"]] += 1
            ids.setdefault(kind, []).append(case["id"])
    total = sum(kinds.values())
    return {
        "dialogues": len(cases),
        "value_misses": total,
        "value_miss_rate": round(total / len(cases), 4) if cases else 0.0,
        "by_kind": dict(sorted(kinds.items())),
        "by_language": dict(sorted(by_language.items())),
        "ids": ids,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("transcripts", type=Path)
    args = parser.parse_args(argv)
    print(json.dumps(summarise(args.transcripts), ensure_ascii=False))


if __name__ == "__main__":
    main()
