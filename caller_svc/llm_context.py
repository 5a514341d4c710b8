"""What an LLM formatter sees of API results (no dspy import: the bench measures it).

A stored result is `{result_id, summary}` only (RESULT_STORE_LLD FR-02, ≤ 200 tokens);
a result that could not be stored goes in as its JSON, truncated so it stays valid.
Everything is wrapped in <api_data> delimiters: data, never instructions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from caller_svc.formatter import ResultToFormat
from caller_svc.json_truncate import truncate_json

# Seed: 50 KB per result, 100 KB across results.
MAX_RESPONSE_BYTES = 50_000
MAX_TOTAL_RESPONSE_BYTES = 100_000


def result_context(result: ResultToFormat, result_id: str | None, summary: str, max_bytes: int) -> str:
    """What the model sees of one result: `{result_id, summary}` when stored, else the
    (valid, truncated) payload. Delimited as data."""
    if not result.success:
        body = json.dumps(
            {"endpoint": result.endpoint_name, "failed": result.error_message}, ensure_ascii=False
        )
    elif result_id:
        body = json.dumps({"result_id": result_id, "summary": summary}, ensure_ascii=False)
    else:
        body = truncate_json({"endpoint": result.endpoint_name, "response": result.data}, max_bytes)
    return f"<api_data>\n{body.replace('</api_data>', '')}\n</api_data>"


def results_block(
    results: Sequence[ResultToFormat], stored: Sequence[tuple[str | None, str]], max_total_bytes: int
) -> str:
    per_result = min(MAX_RESPONSE_BYTES, max_total_bytes // max(1, len(results)))
    return "\n".join(
        f"Result {n}: {result_title(r)}\n{result_context(r, rid, summary, per_result)}"
        for n, (r, (rid, summary)) in enumerate(zip(results, stored, strict=True), start=1)
    )


def result_title(result: ResultToFormat) -> str:
    """What a result is about: the endpoint's description (the catalogue's words), and the
    values it was called with; the snake_case name only when there is no description."""
    what = " ".join(result.description.split()) or result.endpoint_name
    params = ", ".join(f"{k}={v}" for k, v in result.params.items() if v)
    return f"{what}" + (f" (called with {params})" if params else "")
