"""Values of a message split into several requests, read per request.

"When is Independence Day next year and what is the tax on 512KLM": the classifier
matched each endpoint from its own part of the message, so each endpoint's values come
from its own part ("next year" is the holiday's, not the tax's). A value stated once for
several requests is shared with a part that states none of that kind (a parameter of the
same name): "public holidays and school holidays in December" (both in December), "when
are the Christmas school holidays and which public holidays fall in them" (the holidays
of the school holidays' period). A part's own value always wins, and a value of another
kind is never shared ("electricity tomorrow and when do the school holidays start": the
prices' day is not the school holidays' period).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from loop_svc.schema import EndpointSpec, ParamSpec

# Reads the values of `params` in a text: (values by parameter name, model calls made).
Reader = Callable[[str, Sequence[ParamSpec]], tuple[dict[str, str], int]]


def values_by_part(
    endpoints: Sequence[EndpointSpec], parts: Mapping[str, str], message: str, read: Reader
) -> tuple[dict[str, dict[str, str]], int]:
    """Each endpoint's values (by endpoint name) read from its own part of `message`, with
    the values another part shares with it, and the model calls the reading took. An
    endpoint without a part reads the whole message."""
    folded = message.casefold()

    def position(endpoint: EndpointSpec) -> int:
        part = parts.get(endpoint.name, "")
        found = folded.find(part.casefold()) if part else -1
        return found if found >= 0 else len(folded)

    ordered = sorted(endpoints, key=position)
    own: dict[str, dict[str, str]] = {}
    calls = 0
    for endpoint in ordered:
        values, used = read(parts.get(endpoint.name) or message, endpoint.params)
        own[endpoint.name] = dict(values)
        calls += used
    shared: dict[str, dict[str, str]] = {}
    for index, endpoint in enumerate(ordered):
        values = dict(own[endpoint.name])
        # A later part first ("X and Y in December" shares the trailing December), then an
        # earlier one ("X in December and which Y fall in it").
        for other in [*ordered[index + 1 :], *reversed(ordered[:index])]:
            for param in endpoint.params:
                if param.name not in values and param.name in own[other.name]:
                    values[param.name] = own[other.name][param.name]
        shared[endpoint.name] = values
    return shared, calls
