"""Endpoint and parameter schemas as the loop sees them (no protobuf here).

`Concept` says what a parameter means to people (a country, a start date...):
extraction rules and clarifying questions are both chosen by it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from loop_svc.extraction.identifiers import Shape

Role = Literal["start", "end"] | None

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-\s.]+")
_START_WORDS = frozenset(
    {"from", "start", "begin", "since", "after", "min", "pickup", "departure", "depart", "checkin", "in"}
)
_END_WORDS = frozenset(
    {"to", "end", "until", "till", "before", "max", "dropoff", "return", "checkout", "out"}
)


_PLACE_WORDS = frozenset(
    {"city", "location", "area", "destination", "origin", "town", "place", "where", "venue"}
)
_FROM_WORDS = frozenset({"from", "origin", "departure", "source", "pickup"})
_TO_WORDS = frozenset({"to", "destination", "arrival", "dest", "dropoff"})


class Concept(StrEnum):
    COUNTRY = "country"
    LANGUAGE = "language"
    DATE = "date"
    DATETIME = "datetime"
    YEAR = "year"
    REGISTRATION = "registration"
    # A code shaped like the description's example ("e.g. A1234567"): read by that shape.
    IDENTIFIER = "identifier"
    ADDRESS = "address"
    ENUM = "enum"
    BOOLEAN = "boolean"
    INTEGER = "integer"
    NUMBER = "number"
    # A clock time written as free text ("leaving_time": "6:45 am" → 06:45).
    TIME = "time"
    # A named place: a city, a location, an origin or a destination.
    PLACE = "place"
    TEXT = "text"


def name_words(name: str) -> list[str]:
    """'validFrom' → ['valid', 'from']; 'start_date' → ['start', 'date']."""
    return [w.lower() for w in _CAMEL_BOUNDARY.split(name) if w]


class ParamSpec(BaseModel):
    name: str
    type: str = "string"
    required: bool = False
    description: str = ""
    enum: list[str] = Field(default_factory=list)
    # The description by language code (the catalogue's localized descriptions).
    descriptions: dict[str, str] = Field(default_factory=dict)
    # The value's form as the API checks it (OpenAPI `schema.pattern`), when declared.
    pattern: str = ""

    def description_in(self, lang: str) -> str:
        """The description in `lang`: the localized one, else (for English) the catalogue's
        own, else "" — never another language's words in a sentence of this one."""
        localized = self.descriptions.get(lang, "").strip()
        if localized:
            return localized
        return self.description if lang == "en" else ""

    @property
    def words(self) -> list[str]:
        return name_words(self.name)

    @property
    def concept(self) -> Concept:
        words = set(self.words)
        kind = self.type.strip().lower()
        text = self.description.lower()
        if kind == "datetime":
            return Concept.DATETIME
        if kind == "date" or (kind == "string" and "date" in words):
            return Concept.DATE
        if kind == "boolean":
            return Concept.BOOLEAN
        if self.enum:
            return Concept.ENUM
        if "country" in words or (kind == "string" and "country" in text and "language" not in words):
            return Concept.COUNTRY
        if "language" in words or "lang" in words or (kind == "string" and "language code" in text):
            return Concept.LANGUAGE
        if "year" in words:
            return Concept.YEAR
        if words & {"reg", "regnr", "registration", "plate", "numberplate", "licenseplate"}:
            return Concept.REGISTRATION
        if "address" in words:
            return Concept.ADDRESS
        if kind == "string" and self.shape is not None:
            return Concept.IDENTIFIER
        if kind == "string" and "time" in words:
            return Concept.TIME
        if kind == "string" and words & _PLACE_WORDS:
            return Concept.PLACE
        if kind == "integer":
            return Concept.INTEGER
        if kind == "number":
            return Concept.NUMBER
        return Concept.TEXT

    @property
    def shape(self) -> Shape | None:
        """The shape of an identifier: its declared pattern's runs ("^[A-Z]{1,3}[0-9]{5,10}$"),
        else the description's example ("e.g., 123ABC") with lengths guessed around it."""
        # Imported here: the extraction package imports this module (its Role, ParamSpec).
        from loop_svc.extraction.identifiers import shape_of, shape_of_pattern

        if self.type.strip().lower() != "string":
            return None
        if self.pattern and (declared := shape_of_pattern(self.pattern, self.description)) is not None:
            return declared
        return shape_of(self.description)

    @property
    def counts(self) -> bool:
        """Whether an integer says how many items to return ("How many of the most recent
        votings to return", "limit", "number of results")."""
        if self.type.strip().lower() != "integer":
            return False
        text = f"{' '.join(self.words)} {self.description}".lower()
        return bool(re.search(r"\b(?:how many|number of|limit|count|max(?:imum)?|top|size)\b", text))

    @property
    def bounds(self) -> tuple[int, int] | None:
        """The documented range of a number ("(1-100, default 10)", "between 1 and 50")."""
        m = re.search(r"\b(\d+)\s*(?:-|–|—|\.\.|to|and)\s*(\d+)\b", self.description)
        if m is None or int(m.group(1)) >= int(m.group(2)):
            return None
        return int(m.group(1)), int(m.group(2))

    @property
    def role(self) -> Role:
        """Whether the parameter opens or closes a range, judged by its name."""
        words = set(self.words)
        if words & _START_WORDS:
            return "start"
        if words & _END_WORDS:
            return "end"
        return None

    @property
    def place_role(self) -> Literal["from", "to"] | None:
        """Whether a place is where a trip starts or where it goes."""
        words = set(self.words)
        if words & _FROM_WORDS:
            return "from"
        if words & _TO_WORDS:
            return "to"
        return None

    @property
    def is_dated(self) -> bool:
        return self.concept in (Concept.DATE, Concept.DATETIME)


class EndpointSpec(BaseModel):
    name: str
    params: list[ParamSpec] = Field(default_factory=list)
    # The endpoint exactly as it arrived (proto JSON form), so the call sent to
    # caller_svc carries every field, not only those the loop reads.
    payload: dict[str, Any] = Field(default_factory=dict)

    @property
    def required_names(self) -> list[str]:
        return [p.name for p in self.params if p.required]


def merge_params(endpoints: Sequence[EndpointSpec]) -> list[ParamSpec]:
    """One schema for several endpoints, deduplicated by parameter name: a
    parameter is asked once and required if any endpoint requires it."""
    merged: dict[str, ParamSpec] = {}
    for endpoint in endpoints:
        for param in endpoint.params:
            seen = merged.get(param.name)
            if seen is None:
                merged[param.name] = param.model_copy(deep=True)
            elif param.required and not seen.required:
                merged[param.name] = seen.model_copy(update={"required": True})
    return list(merged.values())


def date_pairs(params: Sequence[ParamSpec]) -> list[tuple[ParamSpec, ParamSpec]]:
    """(start, end) parameter pairs: validFrom/validTo, startDate/endDate...
    Paired by the words left once the role word is removed, or, failing that,
    the only start with the only end."""
    dated = [p for p in params if p.is_dated]
    starts = [p for p in dated if p.role == "start"]
    ends = [p for p in dated if p.role == "end"]

    def stem(p: ParamSpec) -> tuple[str, ...]:
        return tuple(w for w in p.words if w not in _START_WORDS | _END_WORDS)

    pairs: list[tuple[ParamSpec, ParamSpec]] = []
    unpaired_ends = list(ends)
    for start in starts:
        match = next((e for e in unpaired_ends if stem(e) == stem(start)), None)
        if match is not None:
            pairs.append((start, match))
            unpaired_ends.remove(match)
    left_starts = [s for s in starts if all(s is not a for a, _ in pairs)]
    if len(left_starts) == 1 and len(unpaired_ends) == 1:
        pairs.append((left_starts[0], unpaired_ends[0]))
    return pairs
