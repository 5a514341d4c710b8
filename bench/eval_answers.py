"""Answer shapes (yes/no, exact counts, extremes, aggregates, time windows, asked fields,
full lists, one aspect of a knowledge page, invalid values) through the real mesh: the
same runner and judge as `bench/eval_dialogues.py`, over a set's `answers_*.jsonl`.

    .venv/bin/python -m bench.eval_answers --catalog tests/data/blind/set1 --json
    .venv/bin/python -m bench.eval_answers --cases tests/data/blind/set1/answers_ru.jsonl

Its LAST LINE is one JSON object; `by_shape` and `by_language_shape` are the per-shape
pass rates (overall and per language), `by_language` per language.
"""

from __future__ import annotations

import sys

from bench.eval_dialogues import main as run_cases


def main(argv: list[str] | None = None) -> None:
    run_cases(argv, pattern="answers_*.jsonl")


if __name__ == "__main__":
    sys.exit(main())
