"""Multi-turn citizen dialogues through the real mesh (`atc up`, every service its own
process, on free ports), judged by `bench/dialogue_judge.py`.

    .venv/bin/python -m bench.eval_dialogues --catalog tests/data/blind/set1 --json
    .venv/bin/python -m bench.eval_dialogues --cases tests/data/blind/set1/dialogues_et.jsonl \
        --transcripts .atc/transcripts.jsonl

Cases are the blind-set format (tests/data/blind/README.md): one chat per case, each
user turn with what its reply must do. Every case is a fresh chat that behaves like the
chat page: it sends the last 20 messages as `conversationHistory` and carries the chat
token it was given. Cases written for a fixed day (`today`) run the mesh under
libfaketime at 10:00 Europe/Tallinn on that day (Debian's `faketime`); without it such
cases are refused rather than judged on the wrong calendar.

With `--llm MODEL` (any litellm model name, e.g. `openai/gpt-4o-mini`, with
`--llm-api-base URL` and `--llm-api-key KEY` or the env vars ATC_EVAL_LLM_*), every service
of the mesh is configured with that model, so a team with a model measures what it buys;
the JSON line then reports `llm_calls_per_turn` (the deterministic figures stay the default).

Prints a line per failed case (`-v`: every case), pass rates by language, category,
shape and tag, and as its LAST LINE one JSON object: `passed`, `cases`, `pass_rate`,
`by_language`, `by_category`, `by_shape`, `by_tag`, `turn_pass_rate`, `llm_calls_per_turn`.
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx

from bench.dialogue_judge import Observed, Verdict, judge_turn
from devtools.launcher.subprocess_mesh import atc_up
from devtools.redis_server import free_port

LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
LOCAL_ZONE = ZoneInfo("Europe/Tallinn")
# The hour of "today" a case's chat runs at, in the citizen's zone.
CASE_HOUR = 10
HISTORY_ITEMS = 20


@dataclass(frozen=True)
class Turn:
    user: str
    expect: Mapping[str, Any]
    ideal: str = ""


@dataclass(frozen=True)
class DialogueCase:
    id: str
    language: str
    today: date | None
    category: str
    turns: tuple[Turn, ...]
    tags: tuple[str, ...] = ()
    shape: str = ""

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> DialogueCase:
        turns = tuple(
            Turn(str(t["user"]), dict(t.get("expect") or {}), str(t.get("ideal") or "")) for t in raw["turns"]
        )
        if not turns:
            raise ValueError(f"case {raw.get('id')} has no turns")
        today = raw.get("today")
        return cls(
            id=str(raw["id"]),
            language=str(raw["language"]),
            today=date.fromisoformat(today) if today else None,
            category=str(raw.get("category") or ""),
            turns=turns,
            tags=tuple(str(t) for t in raw.get("tags") or ()),
            shape=str(raw.get("shape") or ""),
        )


def load_cases(paths: Iterable[Path], pattern: str = "dialogues_*.jsonl") -> list[DialogueCase]:
    """The cases of every file given, and of the files matching `pattern` in every folder."""
    cases: list[DialogueCase] = []
    for path in paths:
        files = sorted(path.glob(pattern)) if path.is_dir() else [path]
        for file in files:
            for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
                if line.strip():
                    try:
                        cases.append(DialogueCase.from_json(json.loads(line)))
                    except (ValueError, KeyError) as exc:
                        raise SystemExit(f"{file}:{number}: not a case ({exc})") from None
    return cases


@dataclass
class TurnRecord:
    user: str
    observed: Observed
    verdict: Verdict
    status: int
    seconds: float
    llm_calls: int = 0


@dataclass
class CaseResult:
    case: DialogueCase
    turns: list[TurnRecord] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return len(self.turns) == len(self.case.turns) and all(t.verdict.passed for t in self.turns)


def _client(base_url: str) -> httpx.AsyncClient:
    # No cookie jar: each chat carries its own token, like an API client (or one tab).
    no_cookies = http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    return httpx.AsyncClient(base_url=base_url, cookies=no_cookies, timeout=180)


# A well-behaved client (the chat page does the same) waits what a 429 asks before
# sending the turn again: admission refuses at once when the mesh is over its capacity.
BUSY_RETRIES = 5


async def post_turn(
    client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str]
) -> httpx.Response:
    for _ in range(BUSY_RETRIES):
        response = await client.post("/v1/orchestrate", json=body, headers=headers)
        if response.status_code != 429:
            return response
        await asyncio.sleep(min(10.0, float(response.headers.get("retry-after") or 1)))
    return response


async def run_case(client: httpx.AsyncClient, case: DialogueCase) -> CaseResult:
    result = CaseResult(case)
    chat_id = f"eval-{case.id}-{uuid.uuid4().hex[:8]}"
    token: str | None = None
    history: list[dict[str, str]] = []
    for turn in case.turns:
        body = {"chatId": chat_id, "message": turn.user, "conversationHistory": history[-HISTORY_ITEMS:]}
        headers = {"authorization": f"Bearer {token}"} if token else {}
        started = time.perf_counter()
        response = await post_turn(client, body, headers)
        seconds = time.perf_counter() - started
        token = response.headers.get("x-chat-token") or token
        try:
            payload = response.json()
        except ValueError:
            payload = {"error": {"message": response.text[:200]}}
        if response.status_code != 200:
            message = (payload.get("error") or {}).get("message", "") if isinstance(payload, dict) else ""
            payload = {"error": {"message": f"HTTP {response.status_code} {message}"}}
        observed = Observed.from_response(payload)
        verdict = judge_turn(turn.expect, observed, case.language)
        llm_calls = int(payload.get("llmCalls") or 0) if isinstance(payload, dict) else 0
        record = TurnRecord(turn.user, observed, verdict, response.status_code, seconds, llm_calls)
        result.turns.append(record)
        history += [
            {"role": "user", "content": turn.user},
            {"role": "assistant", "content": observed.content},
        ]
    return result


def faketime_env(day: date) -> dict[str, str]:
    """The environment that pins every process of the mesh to `day` at CASE_HOUR
    local time (monotonic clocks stay real: timeouts and backoffs are unaffected)."""
    local = datetime(day.year, day.month, day.day, CASE_HOUR, tzinfo=LOCAL_ZONE)
    utc = local.astimezone(ZoneInfo("UTC"))
    return {
        "LD_PRELOAD": str(LIBFAKETIME),
        "FAKETIME": "@" + utc.strftime("%Y-%m-%d %H:%M:%S"),
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        "TZ": "UTC",
    }


# The services that take a model (each its own env prefix).
LLM_SERVICES = ("CLASSIFIER", "LOOP", "CALLER", "INDEXER")


@dataclass(frozen=True)
class ModelChoice:
    model: str
    api_base: str = ""
    api_key: str = ""

    def env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for service in LLM_SERVICES:
            env[f"ATC_{service}_LLM_MODEL"] = self.model
            if self.api_base:
                env[f"ATC_{service}_LLM_API_BASE"] = self.api_base
            if self.api_key:
                env[f"ATC_{service}_LLM_API_KEY"] = self.api_key
        return env


@asynccontextmanager
async def mesh_for(day: date | None, model: ModelChoice | None = None) -> AsyncIterator[str]:
    """`atc up` on free ports (pinned to `day` when given, every service on `model` when
    given); yields the chat URL."""
    env: dict[str, str] = model.env() if model is not None else {}
    if day is not None:
        # Pinned even when the machine's date is that day: the cases are written for
        # CASE_HOUR ("right now", "the rest of today"), not for whatever hour it is.
        if not LIBFAKETIME.exists():  # noqa: ASYNC240 - once, before the mesh starts
            raise SystemExit(
                f"cases are written for {day}: install Debian's faketime (apt-get install faketime) "
                "so the mesh runs on that day"
            )
        env |= faketime_env(day)
    data_dir = Path(tempfile.mkdtemp(prefix="atc-eval-dialogues-"))
    try:
        async with atc_up(free_port(), data_dir, env=env) as mesh:
            yield mesh.url
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


async def run_all(
    cases: Sequence[DialogueCase], concurrency: int, on_done: Any = None, model: ModelChoice | None = None
) -> list[CaseResult]:
    results: list[CaseResult] = []
    by_day: dict[date | None, list[DialogueCase]] = defaultdict(list)
    for case in cases:
        by_day[case.today].append(case)
    gate = asyncio.Semaphore(concurrency)

    async def one(client: httpx.AsyncClient, case: DialogueCase) -> CaseResult:
        async with gate:
            done = await run_case(client, case)
        if on_done is not None:
            on_done(done)
        return done

    for day, day_cases in by_day.items():
        async with mesh_for(day, model) as url, _client(url) as client:
            results += await asyncio.gather(*(one(client, c) for c in day_cases))
    return results


def _rate(passed: int, total: int) -> float | None:
    return round(passed / total, 4) if total else None


def _grouped(results: Sequence[CaseResult], key: Any) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        for name in key(r.case):
            groups[name].append(r.passed)
    return {
        name: {"passed": sum(flags), "cases": len(flags), "pass_rate": _rate(sum(flags), len(flags))}
        for name, flags in sorted(groups.items())
    }


def summarise(results: Sequence[CaseResult]) -> dict[str, Any]:
    passed = sum(r.passed for r in results)
    turns = [t for r in results for t in r.turns]
    return {
        "cases": len(results),
        "passed": passed,
        "pass_rate": _rate(passed, len(results)),
        "turn_pass_rate": _rate(sum(t.verdict.passed for t in turns), len(turns)),
        "by_language": _grouped(results, lambda c: [c.language]),
        "by_category": _grouped(results, lambda c: [c.category] if c.category else []),
        "by_shape": _grouped(results, lambda c: [c.shape] if c.shape else []),
        "by_language_shape": _grouped(results, lambda c: [f"{c.language}:{c.shape}"] if c.shape else []),
        "by_tag": _grouped(results, lambda c: list(c.tags)),
        "llm_calls_per_turn": _rate(sum(t.llm_calls for t in turns), len(turns)),
        "turn_seconds_p50": (round(sorted(t.seconds for t in turns)[len(turns) // 2], 3) if turns else None),
    }


def transcript(result: CaseResult) -> dict[str, Any]:
    return {
        "id": result.case.id,
        "language": result.case.language,
        "category": result.case.category,
        "shape": result.case.shape,
        "passed": result.passed,
        "turns": [
            {
                "user": t.user,
                "reply": t.observed.content,
                "outcome": t.observed.outcome,
                "workflow": t.observed.workflow,
                "called": list(t.observed.called),
                "asked_for": list(t.observed.question_endpoints),
                "sources": list(t.observed.sources),
                "expect": dict(case_turn.expect),
                "ideal": case_turn.ideal,
                "verdict": t.verdict.passed,
                "why": t.verdict.reasons,
            }
            for t, case_turn in zip(result.turns, result.case.turns, strict=False)
        ],
    }


def print_table(title: str, rows: Mapping[str, Mapping[str, Any]]) -> None:
    if not rows:
        return
    print(f"\n{title}")
    for name, row in rows.items():
        print(f"  {name:<28} {row['passed']:>4}/{row['cases']:<4} {row['pass_rate']}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=Path, action="append", default=[], help="a case file (repeatable)")
    parser.add_argument(
        "--catalog", type=Path, action="append", default=[], help="a folder of case files (its sets' files)"
    )
    parser.add_argument("--lang", choices=["en", "et", "ru"], action="append", help="only these languages")
    parser.add_argument("--limit", type=int, default=0, help="at most N cases (0: all)")
    parser.add_argument(
        "--category", action="append", help="only cases of this category or shape (repeatable)"
    )
    parser.add_argument("--concurrency", type=int, default=4, help="chats at once (default 4)")
    parser.add_argument("--transcripts", type=Path, help="write every transcript and verdict (JSONL)")
    parser.add_argument("--json", action="store_true", help="only the JSON line")
    parser.add_argument(
        "--llm", default=os.environ.get("ATC_EVAL_LLM_MODEL", ""), help="a litellm model for all"
    )
    parser.add_argument("--llm-api-base", default=os.environ.get("ATC_EVAL_LLM_API_BASE", ""))
    parser.add_argument("--llm-api-key", default=os.environ.get("ATC_EVAL_LLM_API_KEY", ""))
    parser.add_argument("-v", "--verbose", action="store_true", help="a line for every case")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, *, pattern: str = "dialogues_*.jsonl") -> None:
    args = parse_args(argv)
    sources = [*args.cases, *args.catalog]
    if not sources:
        raise SystemExit("give --cases FILE or --catalog DIR")
    cases = load_cases(sources, pattern)
    if args.lang:
        cases = [c for c in cases if c.language in args.lang]
    if args.category:
        cases = [c for c in cases if c.category in args.category or c.shape in args.category]
    if args.limit:
        cases = cases[: args.limit]

    def report(result: CaseResult) -> None:
        if args.json or (result.passed and not args.verbose):
            return
        mark = "PASS" if result.passed else "FAIL"
        why = next((t.verdict.reasons for t in result.turns if not t.verdict.passed), [])
        print(f"{mark} {result.case.id} [{result.case.category}] {'; '.join(why)[:200]}", flush=True)

    model = ModelChoice(args.llm, args.llm_api_base, args.llm_api_key) if args.llm else None
    results = asyncio.run(run_all(cases, args.concurrency, report, model))
    results.sort(key=lambda r: r.case.id)
    if args.transcripts:
        args.transcripts.parent.mkdir(parents=True, exist_ok=True)
        with args.transcripts.open("w", encoding="utf-8") as out:
            for result in results:
                out.write(json.dumps(transcript(result), ensure_ascii=False) + "\n")
    summary = summarise(results)
    if not args.json:
        print_table("by language", summary["by_language"])
        print_table("by category", summary["by_category"])
        print_table("by shape", summary["by_shape"])
        print(f"\n{summary['passed']}/{summary['cases']} cases passed ({summary['pass_rate']})")
    print(json.dumps(summary, ensure_ascii=False, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
