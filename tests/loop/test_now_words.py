""" "Now" as people write it (en/et/ru, chat shorthand, multi-word forms): the current hour
of today, in the request window and in the answer shape alike. Generated over the words x
sentence frames; and a long run of the pattern costs bounded time."""

from __future__ import annotations

import re
import time as clock
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from loop_svc.extraction import CountryNames, RuleExtractor
from loop_svc.extraction.text import NOW_PATTERN, NOW_WORDS
from loop_svc.schema import ParamSpec
from loop_svc.shapes import RuleShapeReader
from services.answer_shape import Hours

ZONE = ZoneInfo("Europe/Tallinn")
TODAY = date(2027, 3, 9)
NOW = datetime(2027, 3, 9, 15, 20, tzinfo=ZONE)
PERIOD = [
    ParamSpec(name="start", type="datetime", required=True, description="Start of the period in ISO 8601"),
    ParamSpec(name="end", type="datetime", required=True, description="End of the period in ISO 8601"),
]
EXTRACTOR = RuleExtractor(CountryNames(), zone=ZONE, now=lambda: NOW.astimezone(UTC))
SHAPES = RuleShapeReader(lambda: TODAY, lambda: NOW.replace(tzinfo=None))
FRAMES = {"en": "what does power cost {w}?", "et": "mis elekter maksab {w}", "ru": "сколько стоит свет {w}?"}
LANG_OF = {w: ("ru" if any("\u0400" <= c <= "\u04ff" for c in w) else None) for w in NOW_WORDS}


def _frames(word: str) -> list[tuple[str, str]]:
    lang = LANG_OF[word]
    return [(lang, FRAMES[lang])] if lang else [("en", FRAMES["en"]), ("et", FRAMES["et"])]


@pytest.mark.parametrize(
    ("lang", "message"), [(lang, frame.format(w=w)) for w in NOW_WORDS for lang, frame in _frames(w)]
)
def test_now_is_the_current_hour_of_today(lang: str, message: str) -> None:
    values = EXTRACTOR.extract(message, PERIOD, language=lang)
    assert values == {"start": "2027-03-09T13:00:00Z", "end": "2027-03-09T13:59:59Z"}, message
    shape = SHAPES.read(message, lang)
    assert any(f.condition == Hours(15, 16) for f in shape.filters), message


def test_the_now_pattern_costs_linear_work_on_long_input() -> None:
    pattern = re.compile(rf"(?<!\w)(?:{NOW_PATTERN})(?!\w)")
    for text in ("rn " * 33_000, "right " * 16_000, "на данный " * 10_000, "r" * 100_000):
        started = clock.perf_counter()
        list(pattern.finditer(text))
        assert clock.perf_counter() - started < 2
