"""Per-language labels an endpoint declares for its response fields and enum
values (domain twin of atc.common.v1.ResponseFieldLabel)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from services.language import Lang


@dataclass(frozen=True)
class FieldLabel:
    # Label by language code.
    labels: Mapping[str, str] = field(default_factory=dict)
    # Value → label by language code.
    values: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # Unit by language code.
    units: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LabelBook:
    """Looks labels up by dotted path first ("tax.annualTax"), then by the last key."""

    fields: Mapping[str, FieldLabel] = field(default_factory=dict)
    # What the answer is about, by language code.
    titles: Mapping[str, str] = field(default_factory=dict)

    def _find(self, path: str) -> FieldLabel | None:
        found = self.fields.get(path)
        if found is None and "." in path:
            found = self.fields.get(path.rsplit(".", 1)[1])
        return found

    def field_label(self, path: str) -> FieldLabel | None:
        return self._find(path)

    def label(self, path: str, lang: Lang) -> str | None:
        found = self._find(path)
        return found.labels.get(lang) if found else None

    def value(self, path: str, value: str, lang: Lang) -> str | None:
        found = self._find(path)
        if not found:
            return None
        labels = found.values.get(value)
        return labels.get(lang) if labels else None

    def unit(self, path: str, lang: Lang) -> str | None:
        found = self._find(path)
        return found.units.get(lang) if found else None

    def title(self, lang: Lang) -> str | None:
        return self.titles.get(lang)


NO_LABELS = LabelBook()
