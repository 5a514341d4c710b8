"""Rules first, then the model for what they left open (only when a model is
configured and a required parameter is still missing). The rules' values win."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import date

from loop_svc.extraction.llm import ParamExtractionModule
from loop_svc.extraction.rules import RuleExtractor
from loop_svc.schema import ParamSpec
from services.language import Lang

log = logging.getLogger(__name__)


class RulesThenModel:
    def __init__(
        self, rules: RuleExtractor, model: ParamExtractionModule | None, today: Callable[[], date]
    ) -> None:
        self._rules = rules
        self._model = model
        self._today = today

    def extract(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        language: Lang,
        asked: Sequence[str] = (),
        known: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        return self.extract_with_calls(message, params, language=language, asked=asked, known=known)[0]

    def problems(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        values: Mapping[str, str],
        asked: Sequence[str] = (),
    ) -> dict[str, str]:
        return self._rules.problems(message, params, values=values, asked=asked)

    def alternatives(
        self, message: str, params: Sequence[ParamSpec], *, values: Mapping[str, str], language: Lang = "en"
    ) -> dict[str, list[str]]:
        return self._rules.alternatives(message, params, values=values, language=language)

    def extract_with_calls(
        self,
        message: str,
        params: Sequence[ParamSpec],
        *,
        language: Lang,
        asked: Sequence[str] = (),
        known: Mapping[str, str] | None = None,
        history: str = "",
    ) -> tuple[dict[str, str], int]:
        """The values and how many model calls it took (0 or 1)."""
        values = self._rules.extract(message, params, language=language, asked=asked, known=known)
        if self._model is None:
            return values, 0
        have = {**(known or {}), **values}
        still_open = [p for p in params if p.name not in have]
        if not any(p.required for p in still_open):
            return values, 0
        try:
            found = self._model(
                message, still_open, history=history, known=have, today=self._today(), language=language
            )
        except Exception:  # a failing model leaves the rules' answer; the question follows
            log.exception("parameter extraction model failed")
            return values, 1
        values.update({k: v for k, v in found.items() if k not in values})
        return values, 1
