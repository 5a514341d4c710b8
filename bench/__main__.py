"""`make bench`: every benchmark in turn (each is also runnable alone)."""

from __future__ import annotations

import asyncio

from bench import classifier_thresholds, cold_start, turn_latency

if __name__ == "__main__":
    asyncio.run(cold_start.main())
    asyncio.run(turn_latency.main(30))
    asyncio.run(classifier_thresholds.main())
