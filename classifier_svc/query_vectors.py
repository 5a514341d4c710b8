"""Query vectors the indexer already computed, by text.

One turn searches the same text several times: the endpoint, service and knowledge
collections, the offer an affirmation points at, the parts of a multi-intent message.
The indexer returns the query's vector with every response; handing it back with the
next search of the same text spares the embedding, the costly part of a search.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

# Distinct texts kept: a turn searches a handful, so this spans many concurrent turns.
DEFAULT_SIZE = 512


class QueryVectors:
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()

    def get(self, text: str) -> Sequence[float]:
        """The text's vector, or () when it has not been embedded yet."""
        return self._vectors.get(text, ())

    def remember(self, text: str, vector: Sequence[float]) -> None:
        if not vector:
            return
        self._vectors[text] = list(vector)
        self._vectors.move_to_end(text)
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)

    def clear(self) -> None:
        self._vectors.clear()
