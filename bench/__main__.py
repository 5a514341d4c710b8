"""`make bench`: every benchmark in turn (each is also runnable alone). Routing quality
needs the evaluation data outside the repo and runs alone: `python -m bench.eval_routing
--catalog ../shared/eval/clinc_dev`."""

from __future__ import annotations

import asyncio

from bench import cold_start, turn_latency

if __name__ == "__main__":
    asyncio.run(cold_start.main())
    asyncio.run(turn_latency.main(30))
