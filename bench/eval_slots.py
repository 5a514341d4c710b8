"""Slot filling of the loop's deterministic extraction on SGD-style dialogues.

Reads DIR/slot_dialogues.jsonl and DIR/endpoints.json (format: ../shared/eval/README.md)
in place, with gold routing: for every user message that carries `expected`, the
dialogue up to that message goes through `loop_svc.extraction.dialogue.track` (the
loop's RuleExtractor, turn by turn, "today" = the dialogue's reference_date, no LLM),
and the predicted params are scored as the README defines: per-slot-type accuracy,
spurious params, strict and canonical-aware joint goal accuracy (JGA), and a lenient
JGA that ignores extra params (labelled as such).

    .venv/bin/python -m bench.eval_slots --catalog ../shared/eval/sgd_dev
    .venv/bin/python -m bench.eval_slots --catalog ../shared/eval/sgd_dev --limit 100 --errors 20

The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.dialogue import Message, track
from loop_svc.schema import ParamSpec


def norm(value: Any) -> str:
    if isinstance(value, bool):
        value = "true" if value else "false"
    return " ".join(str(value).lower().split())


def _params(endpoint: dict[str, Any]) -> list[ParamSpec]:
    return [
        ParamSpec(
            name=p["name"],
            type=p.get("type") or "string",
            required=bool(p.get("required")),
            description=p.get("description", ""),
            enum=[str(v) for v in p.get("enum") or []],
        )
        for p in endpoint.get("params", [])
    ]


def _slot_type(param: ParamSpec) -> str:
    kind = param.type
    if param.enum:
        return f"{kind}+enum"
    if kind == "string" and "time" in param.words:
        return "string(time)"
    return kind


def _fixed(day: date) -> Callable[[], date]:
    return lambda: day


def domain_of(endpoint_name: str) -> str:
    """The SGD domain of an endpoint ("buses_2_find_bus" → "buses"): services of one
    domain (buses_1, buses_2) share slot names, so they are held out together."""
    return endpoint_name.split("_", 1)[0]


def folds_of(endpoint_names: list[str], count: int) -> list[set[str]]:
    """`count` folds of domains, in a fixed order (sorted, dealt round robin)."""
    domains = sorted({domain_of(n) for n in endpoint_names})
    return [set(domains[i::count]) for i in range(count)]


def evaluate(
    catalog: Path, limit: int | None = None, show_errors: int = 0, domains: set[str] | None = None
) -> dict[str, Any]:
    """Scores every dialogue, or only those of the endpoints in `domains`."""
    endpoints = {e["name"]: e for e in json.loads((catalog / "endpoints.json").read_text())}
    countries = CountryNames()
    turns = jga = jga_canonical = jga_lenient = 0
    slots = Counter[str]()
    correct_strict = Counter[str]()
    correct_canonical = Counter[str]()
    spurious = 0
    errors: list[dict[str, Any]] = []
    started = time.perf_counter()
    with (catalog / "slot_dialogues.jsonl").open() as lines:
        for n, line in enumerate(lines):
            if limit is not None and n >= limit:
                break
            dialogue = json.loads(line)
            if domains is not None and domain_of(dialogue["endpoint"]) not in domains:
                continue
            params = _params(endpoints[dialogue["endpoint"]])
            by_name = {p.name: p for p in params}
            today = date.fromisoformat(dialogue["reference_date"])
            extractor = RuleExtractor(countries, today=_fixed(today))
            messages = dialogue["messages"]
            for i, message in enumerate(messages):
                if message["role"] != "user" or "expected" not in message:
                    continue
                history = [Message(m["role"], m["content"]) for m in messages[: i + 1]]
                predicted = track(history, params, extractor, language="en")
                dontcare = set(message.get("dontcare", []))
                predicted = {k: v for k, v in predicted.items() if k not in dontcare and v}
                expected = message["expected"]
                canonical = message.get("expected_canonical", {})
                alternatives = message.get("alternatives", {})
                turns += 1
                all_strict = all_canonical = True
                for slot, value in expected.items():
                    kind = _slot_type(by_name[slot])
                    slots[kind] += 1
                    guess = norm(predicted.get(slot, ""))
                    strict = slot in predicted and guess == norm(value)
                    accepted = {norm(value), norm(canonical.get(slot, value))}
                    accepted |= {norm(a) for a in alternatives.get(slot, [])}
                    canon = slot in predicted and guess in accepted
                    correct_strict[kind] += strict
                    correct_canonical[kind] += canon
                    all_strict &= strict
                    all_canonical &= canon
                extra = [k for k in predicted if k not in expected]
                spurious += len(extra)
                jga += all_strict and not extra
                jga_canonical += all_canonical and not extra
                jga_lenient += all_canonical
                if show_errors and not (all_canonical and not extra) and len(errors) < show_errors:
                    errors.append(
                        {
                            "id": dialogue["id"],
                            "message": message["content"],
                            "expected": canonical or expected,
                            "predicted": predicted,
                        }
                    )
    total = sum(slots.values())
    result: dict[str, Any] = {
        "catalog": str(catalog),
        "turns": turns,
        "jga": round(jga / turns, 4) if turns else 0.0,
        "jga_canonical": round(jga_canonical / turns, 4) if turns else 0.0,
        "jga_canonical_lenient_ignoring_extra_params": round(jga_lenient / turns, 4) if turns else 0.0,
        "slot_accuracy": round(sum(correct_strict.values()) / total, 4) if total else 0.0,
        "slot_accuracy_canonical": round(sum(correct_canonical.values()) / total, 4) if total else 0.0,
        "spurious_params": spurious,
        "per_slot_type": {
            kind: {
                "slots": count,
                "strict": round(correct_strict[kind] / count, 4),
                "canonical": round(correct_canonical[kind] / count, 4),
            }
            for kind, count in sorted(slots.items())
        },
        "seconds": round(time.perf_counter() - started, 1),
        "llm_calls": 0,
    }
    for error in errors:
        print(json.dumps(error, ensure_ascii=False), file=sys.stderr)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--catalog", type=Path, required=True, help="folder with slot_dialogues.jsonl")
    parser.add_argument("--limit", type=int, default=None, help="only the first N dialogues")
    parser.add_argument("--errors", type=int, default=0, help="print up to N wrong turns to stderr")
    parser.add_argument(
        "--leave-services-out",
        type=int,
        default=0,
        metavar="K",
        help="also score K folds of held-out SGD domains (services of a domain together); rule changes "
        "are to be judged on folds they were not tuned on",
    )
    args = parser.parse_args(argv)
    result = evaluate(args.catalog, args.limit, args.errors)
    if args.leave_services_out:
        names = [e["name"] for e in json.loads((args.catalog / "endpoints.json").read_text())]
        folds = []
        for held_out in folds_of(names, args.leave_services_out):
            scored = evaluate(args.catalog, args.limit, 0, held_out)
            folds.append(
                {
                    "domains": sorted(held_out),
                    "turns": scored["turns"],
                    "jga_canonical": scored["jga_canonical"],
                }
            )
        total = sum(f["turns"] for f in folds)
        result["leave_services_out"] = {
            "folds": folds,
            "jga_canonical": round(sum(f["jga_canonical"] * f["turns"] for f in folds) / total, 4)
            if total
            else 0.0,
        }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
