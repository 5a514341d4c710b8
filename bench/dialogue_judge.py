"""The automatic judge of the blind sets (`tests/data/blind/`): does a reply do what the
case's `expect` asks, as a demanding citizen would check it?

Two halves, judged separately so each can be checked on its own:
- `judge_text(expect, text, language)`: the facts in the reply — dates in any common
  en/et/ru format, numbers in any formatting, clock times, required and forbidden
  strings (case- and diacritics-insensitive), yes/no first, the answer's language.
  Tested against the writers' ideal replies (they must pass) and against mutated ones
  (another month, other numbers, English labels in an et/ru reply: they must fail).
- `judge_kind(expect, observed)`: what the mesh did — called the capability's endpoint,
  asked a question, answered from the knowledge page, refused — read from the turn's
  JSON (`/v1/orchestrate`), never from wording.

The judge knows nothing of how the mesh decides; it reads what a citizen (and the
network) can see.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

# The case format's capability names → the demo catalogue's endpoint / service names.
CAPABILITY_ENDPOINTS: dict[str, tuple[str, ...]] = {
    "public_holidays": ("get_national_holidays",),
    "school_holidays": ("get_school_holidays",),
    "vehicle_tax": ("get_vehicle_tax_info",),
    "address_search": ("search_address",),
    "electricity_prices": ("get_electricity_prices",),
    "parliament_votings": ("get_parliament_votings",),
    "document_status": ("check_document_application_status",),
}

# Per month: the stems that take endings ("jaanuaril", "detsembris", "декабря"), then the
# abbreviations, which stand alone ("dets.", "Dec 24"): a word that merely starts like one
# is no month ("jaanipäev", "decision", "novel").
_MONTH_FORMS = [
    (("januar", "jaanuar", "январ"), ("jan", "jaan", "янв")),
    (("februar", "veebruar", "феврал"), ("feb", "veebr", "фев")),
    (("march", "märts", "marts", "март"), ("mar", "mär", "мар")),
    (("april", "aprill", "апрел"), ("apr", "апр")),
    (("mai",), ("may", "мая", "май", "мае")),
    (("june", "juuni", "июн"), ("jun",)),
    (("july", "juuli", "июл"), ("jul",)),
    (("august", "август"), ("aug", "авг")),
    (("septemb", "сентябр"), ("sep", "sept", "сен", "сент")),
    (("octob", "oktoob", "октябр"), ("oct", "okt", "окт")),
    (("novemb", "ноябр"), ("nov", "ноя")),
    (("decemb", "detsemb", "декабр"), ("dec", "dets", "дек")),
]
_MONTHS: dict[str, int] = {}
for _number, (_stems, _short) in enumerate(_MONTH_FORMS, start=1):
    for _name in _stems + _short:
        _MONTHS[_name] = _number


def _longest_first(names: list[str]) -> str:
    return "|".join(sorted((re.escape(m) for m in names), key=len, reverse=True))


_LETTER = "a-zа-яёõäöü"
_MONTH_STEMS = _longest_first([n for stems, _ in _MONTH_FORMS for n in stems])
_MONTH_SHORT = _longest_first([n for _, short in _MONTH_FORMS for n in short])
_MONTH_WORD = rf"(?<![{_LETTER}])(?P<month>(?:{_MONTH_STEMS})[{_LETTER}]*|(?:{_MONTH_SHORT})(?![{_LETTER}]))"
_DAY = r"(?P<day>[0-3]?\d)"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DASH = r"\s*(?:-|–|—|\.\.|kuni|to|until|till|по|до)\s*"

_ISO = re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b")
_NUMERIC = re.compile(
    r"(?<![\d.])(?P<day>[0-3]?\d)[./](?P<month>[01]?\d)(?:[./](?P<year>(?:19|20)?\d\d))?(?![\d])"
)
# "24 December 2026", "24. detsembril", "24-го декабря", "24th of Dec"
_DAY_MONTH = re.compile(
    rf"(?<![\d])(?:(?P<day0>[0-3]?\d)\.?(?:st|nd|rd|th|-?го|-?е)?{_DASH})?{_DAY}\.?(?:st|nd|rd|th|-?го|-?е)?\s*(?:of\s+)?{_MONTH_WORD}\.?(?:\s*,?\s*{_YEAR})?",
    re.IGNORECASE,
)
# "December 24, 2026", "Dec 24–26"
_MONTH_DAY = re.compile(
    rf"{_MONTH_WORD}\.?\s+(?P<day>[0-3]?\d)(?:st|nd|rd|th)?(?:{_DASH}(?P<day1>[0-3]?\d)(?:st|nd|rd|th)?)?(?:\s*,?\s*{_YEAR})?(?![\d:])",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"(?<![\w.,])[-−]?\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?(?![\w])"
    r"|(?<![\w.,])[-−]?\d+(?:[.,]\d+)?(?![\w])"
)
# Estonian "1.–7.03.2027", "19.–25.10.": a range whose first day borrows the month of the second.
_NUMERIC_DAY_RANGE = re.compile(r"(?<![\d.])(?P<day>[0-3]?\d)\.\s*[-–—]\s*(?=[0-3]?\d[./][01]?\d)")
_TIME = re.compile(r"(?<![\d])(?P<h>[0-2]?\d)[:.](?P<m>[0-5]\d)(?![\d])")

_YES = {
    "en": ("yes", "yeah", "yep", "correct", "indeed", "it is", "it's"),
    "et": ("jah", "jaa", "on küll", "jah,", "õige"),
    "ru": ("да", "является", "верно"),
}
_NO = {
    "en": ("no", "not", "isn't", "isnt", "none", "nope"),
    "et": ("ei", "pole", "ei ole", "mitte"),
    "ru": ("нет", "не является", "не "),
}


def fold(text: str) -> str:
    """Lower case, no diacritics, one space: how a fact is compared."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.replace("ё", "е").split())


def _month_of(word: str) -> int | None:
    word = word.lower().rstrip(".")
    for length in range(len(word), 2, -1):
        if (month := _MONTHS.get(word[:length])) is not None:
            return month
    return None


@dataclass(frozen=True)
class DateMention:
    month: int
    day: int
    year: int | None

    def is_(self, wanted: date) -> bool:
        return self.month == wanted.month and self.day == wanted.day and self.year in (None, wanted.year)


def _mention(day: str, month: int | None, year: str | None) -> DateMention | None:
    if month is None or not day:
        return None
    d = int(day)
    if not 1 <= d <= 31 or not 1 <= month <= 12:
        return None
    y = int(year) if year else None
    if y is not None and y < 100:
        y += 2000
    return DateMention(month, d, y)


def _span(first: DateMention, last: DateMention) -> list[DateMention]:
    """Days from `first` to `last` (a range such as "24–26 December"), at most 62."""
    year = first.year or last.year or 2000
    try:
        start = date(first.year or year, first.month, first.day)
        end = date(last.year or year, last.month, last.day)
    except ValueError:
        return [first, last]
    if end < start or (end - start).days > 62:
        return [first, last]
    out = []
    day = start
    while day <= end:
        out.append(DateMention(day.month, day.day, first.year or last.year))
        day += timedelta(days=1)
    return out


_YEAR_WORD = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def date_mentions(text: str, *, expand_ranges: bool, infer_years: bool = False) -> list[DateMention]:
    """Every date the text names, in ISO, numeric (24.12.2026, 24.12.), day-month
    ("24. detsembril", "24 декабря") or month-day ("December 24") form. With
    `infer_years`, a date without its year takes the year last named before it ("in
    2027: 6 January, …"), so a reply about next year does not name this year's days."""
    if infer_years:
        years = [(m.start(), int(m.group(0))) for m in _YEAR_WORD.finditer(text)]
        out = []
        for start, mention in _positioned_mentions(text, expand_ranges):
            if mention.year is None:
                earlier = [y for at, y in years if at < start]
                if earlier:
                    mention = DateMention(mention.month, mention.day, earlier[-1])
            out.append(mention)
        return out
    return [m for _, m in _positioned_mentions(text, expand_ranges)]


def _positioned_mentions(text: str, expand_ranges: bool) -> list[tuple[int, DateMention]]:
    found: list[tuple[int, DateMention]] = []
    covered: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= a or m.start() >= b for a, b in covered)

    for m in _ISO.finditer(text):
        if (dm := _mention(m["day"], int(m["month"]), m["year"])) is not None:
            found.append((m.start(), dm))
            covered.append(m.span())
    for m in _DAY_MONTH.finditer(text):
        if not free(m):
            continue
        month = _month_of(m["month"])
        last = _mention(m["day"], month, m["year"])
        if last is None:
            continue
        covered.append(m.span())
        first = _mention(m["day0"], month, m["year"]) if m["day0"] else None
        if first is not None:
            found.extend((m.start(), x) for x in (_span(first, last) if expand_ranges else [first, last]))
        else:
            found.append((m.start(), last))
    for m in _MONTH_DAY.finditer(text):
        if not free(m):
            continue
        month = _month_of(m["month"])
        first = _mention(m["day"], month, m["year"])
        if first is None:
            continue
        covered.append(m.span())
        last = _mention(m["day1"], month, m["year"]) if m["day1"] else None
        if last is not None:
            found.extend((m.start(), x) for x in (_span(first, last) if expand_ranges else [first, last]))
        else:
            found.append((m.start(), first))
    numeric = [m for m in _NUMERIC.finditer(text) if free(m)]
    for m in _NUMERIC_DAY_RANGE.finditer(text):
        second = next((n for n in numeric if n.start() == m.end()), None)
        if second is None or not free(m):
            continue
        year = second["year"]
        first = _mention(m["day"], int(second["month"]), year)
        last = _mention(second["day"], int(second["month"]), year)
        if first is None or last is None:
            continue
        covered.append(m.span())
        # The range's last day is the numeric date after it, read below.
        found.extend((m.start(), x) for x in (_span(first, last)[:-1] if expand_ranges else [first]))
    for i, m in enumerate(numeric):
        # "24.12.2026", Estonian "24.12." and "24.12 –"; "01.03–07.03.2027" takes the year of
        # its second half. A price ("24.12 €") or a one-digit month ("12.5") is no date.
        year = m["year"]
        after = text[m.end() : m.end() + 12]
        if (
            not year
            and i + 1 < len(numeric)
            and re.match(r"\s*[-–—]\s*$", text[m.end() : numeric[i + 1].start()])
        ):
            year = numeric[i + 1]["year"]
        if not year and not after.startswith("."):
            if len(m["month"]) != 2 or re.match(r"\s*(?:€|eur|s/kwh|senti|%|mwh|snt|евро|€/)", after.lower()):
                continue
        if (dm := _mention(m["day"], int(m["month"]), year)) is not None:
            found.append((m.start(), dm))
            covered.append(m.span())
    return found


# Small counts said in words ("Six of them", "kaks", "три праздника"): a citizen reads
# them as the number. From two up: "one"/"üks"/"один" are words of every other sentence.
NUMBER_WORDS: dict[int, tuple[str, ...]] = {
    2: ("two", "kaks", "kahe", "два", "две", "двух"),
    3: ("three", "kolm", "kolme", "три", "трёх", "трех"),
    4: ("four", "neli", "nelja", "четыре", "четырёх", "четырех"),
    5: ("five", "viis", "viie", "пять", "пяти"),
    6: ("six", "kuus", "kuue", "шесть", "шести"),
    7: ("seven", "seitse", "seitsme", "семь", "семи"),
    8: ("eight", "kaheksa", "восемь", "восьми"),
    9: ("nine", "üheksa", "девять", "девяти"),
    10: ("ten", "kümme", "kümne", "десять", "десяти"),
    11: ("eleven", "üksteist", "üheteistkümne", "одиннадцать", "одиннадцати"),
    12: ("twelve", "kaksteist", "kaheteistkümne", "двенадцать", "двенадцати"),
}
_NUMBER_WORD = re.compile(
    r"(?<!\w)("
    + "|".join(sorted({fold(w) for ws in NUMBER_WORDS.values() for w in ws}, key=len, reverse=True))
    + r")(?!\w)"
)
_NUMBER_WORD_VALUES = {fold(w): n for n, ws in NUMBER_WORDS.items() for w in ws}


def numbers_in(text: str) -> list[float]:
    out: list[float] = [float(_NUMBER_WORD_VALUES[m.group(1)]) for m in _NUMBER_WORD.finditer(fold(text))]
    for m in _NUMBER.finditer(text):
        raw = m.group(0).replace("−", "-")
        raw = re.sub(r"[ \u00a0\u202f]", "", raw)
        if "," in raw and "." in raw:
            raw = raw.replace(",", "")
        raw = raw.replace(",", ".")
        try:
            out.append(float(raw))
        except ValueError:
            continue
    return out


def _number_present(wanted: float, found: Iterable[float]) -> bool:
    tolerance = 0.051 + 0.0005 * abs(wanted)
    return any(abs(value - wanted) <= tolerance for value in found)


def times_in(text: str) -> set[tuple[int, int]]:
    return {(int(m["h"]), int(m["m"])) for m in _TIME.finditer(text) if int(m["h"]) < 24}


def _starts_yes_or_no(text: str, language: str) -> str | None:
    """The reply's answer, "yes" or "no": the answer word that comes first in its first
    sentence, else in the whole reply (a two-part answer says it in its own part)."""
    first = re.split(r"(?<=[.!?])\s|\n", text.strip(), maxsplit=1)[0]
    return _first_answer_word(first, language) or _first_answer_word(text, language)


def _first_answer_word(text: str, language: str) -> str | None:
    folded = f" {fold(text)} "
    best: tuple[int, str] | None = None
    for verdict, words in (("yes", _YES), ("no", _NO)):
        for lang_words in (words.get(language, ()), words["en"]):
            for word in lang_words:
                pattern = rf"(?<![\w]){re.escape(fold(word).strip())}(?![\w])"
                m = re.search(pattern, folded)
                if m and (best is None or m.start() < best[0]):
                    best = (m.start(), verdict)
    return best[1] if best else None


# Words that only English uses (function words and the labels an API answer carries):
# two of them in an Estonian or Russian reply are an English sentence or label, whatever
# names (streets, bills, holidays) the reply quotes. None is an Estonian word too.
_ENGLISH_MARKERS = frozenset(
    "the of is are was were and or with from to at by this that these those your you it its "
    "has have there which what when where how not yes can will would should please "
    "status date name type price average lowest highest result results found address "
    "postal code county vehicle application ready pickup processing received holiday holidays "
    "public school prices more than day days year hour hours".split()
)
_ESTONIAN_MARKERS = frozenset(
    "ja on ei ning või kas see selle need mis kui kus kuidas kes oli olid aga ka et siis "
    "teie te sa sinu palun jah pole veel kõik üks nagu kuni alates riigipüha riigipühad "
    "hind päev aasta".split()
)
# Marker words both English and Estonian use.
_SHARED_EN_ET = frozenset({"on"})


def language_ok(text: str, language: str) -> bool:
    """Is the reply in `language`? Judged by the words only one of the three languages
    uses, so quoted names (Estonian street names, bill titles) do not decide it."""
    words = re.findall(r"[a-zA-ZõäöüšžÕÄÖÜŠŽ']+|[\u0400-\u04ff]+", text)
    if not words:
        return True  # a bare number or code is in no language
    lower = [w.lower() for w in words]
    if language == "en":
        # "on" is English as much as Estonian: in an English reply it says nothing.
        lower = [w for w in lower if w not in _SHARED_EN_ET]
    cyrillic = sum(1 for w in words if "\u0400" <= w[0] <= "\u04ff" and len(w) > 2)
    english = sum(1 for w in lower if w in _ENGLISH_MARKERS)
    estonian = sum(1 for w in lower if w in _ESTONIAN_MARKERS)
    if language == "ru":
        # Only names and codes ("150KKK — BMW X5"), no word of any language: no evidence.
        return (cyrillic >= 1 or english + estonian == 0) and english < 2
    if language == "et":
        return (cyrillic < 3 and english < 2) or (estonian >= 3 * english and english < 4)
    return cyrillic < 3 and (english + estonian < 3 or english >= estonian)


@dataclass
class Verdict:
    passed: bool = True
    reasons: list[str] = field(default_factory=list)

    def fail(self, reason: str) -> None:
        self.passed = False
        self.reasons.append(reason)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def judge_text(expect: Mapping[str, Any], text: str, language: str) -> Verdict:
    verdict = Verdict()
    folded = fold(text)
    if not text.strip():
        verdict.fail("empty reply")
        return verdict
    positive = date_mentions(text, expand_ranges=True)
    for iso in _as_list(expect.get("dates")):
        wanted = date.fromisoformat(iso)
        if not any(m.is_(wanted) for m in positive):
            verdict.fail(f"date {iso} missing")
    explicit = date_mentions(text, expand_ranges=False, infer_years=True)
    for iso in _as_list(expect.get("not_dates")):
        unwanted = date.fromisoformat(iso)
        if any(m.is_(unwanted) for m in explicit):
            verdict.fail(f"date {iso} must not appear")
    found_numbers = numbers_in(text)
    for number in _as_list(expect.get("numbers")):
        try:
            wanted_number = float(str(number).replace(",", "."))
        except ValueError:
            continue
        if not _number_present(wanted_number, found_numbers):
            verdict.fail(f"number {number} missing")
    found_times = times_in(text)
    for clock in _as_list(expect.get("times")):
        h, _, m = str(clock).partition(":")
        if (int(h), int(m or 0)) not in found_times:
            verdict.fail(f"time {clock} missing")
    for fact in _as_list(expect.get("must_include")):
        options = [fold(str(o)) for o in _as_list(fact)]
        if options and not any(o and o in folded for o in options):
            verdict.fail(f"none of {_as_list(fact)[:3]} present")
    for banned in _as_list(expect.get("must_not_include")):
        if fold(str(banned)) and fold(str(banned)) in folded:
            verdict.fail(f"{banned!r} must not appear")
    if (yes_no := expect.get("yes_no")) in ("yes", "no"):
        said = _starts_yes_or_no(text, language)
        if said != yes_no:
            verdict.fail(f"expected a {yes_no!r} first, got {said!r}")
    if not language_ok(text, language):
        verdict.fail(f"reply not in {language}")
    return verdict


@dataclass(frozen=True)
class Observed:
    """What one turn did, as `/v1/orchestrate` reports it."""

    content: str
    outcome: str
    workflow: str
    question_endpoints: tuple[str, ...] = ()
    called: tuple[str, ...] = ()
    called_ok: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    error: str = ""

    @classmethod
    def from_response(cls, body: Mapping[str, Any]) -> Observed:
        question = body.get("question") or {}
        outcomes = body.get("callOutcomes") or []
        return cls(
            content=str(body.get("content") or ""),
            outcome=str(body.get("outcome") or ""),
            workflow=str(body.get("workflow") or ""),
            question_endpoints=tuple(question.get("endpointNames") or ()),
            called=tuple(str(o.get("endpointName", "")) for o in outcomes),
            called_ok=tuple(str(o.get("endpointName", "")) for o in outcomes if o.get("success")),
            sources=tuple(
                str(s.get("url", "")) + " " + str(s.get("title", "")) for s in body.get("sources") or ()
            ),
            error=str(
                (body.get("error") or {}).get("message", "")
                if isinstance(body.get("error"), dict)
                else body.get("error") or ""
            ),
        )

    @property
    def asked(self) -> bool:
        return "needs_input" in self.outcome.lower()

    @property
    def knowledge(self) -> bool:
        return "rag" in self.workflow.lower() and bool(self.sources)


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message", ""))
    return str(error or "")


def _endpoints(capabilities: Sequence[str]) -> set[str]:
    return {name for cap in capabilities for name in CAPABILITY_ENDPOINTS.get(cap, (cap,))}


_TOPIC_WORDS = {
    "id-card": ("id-card", "id card", "id-kaar", "id-карт"),
    "residence": ("residence", "elukoh", "места жительства", "жительств"),
    "parental-benefit": ("parental", "vanemahüvit", "родительск"),
    "passport": ("passport", "pass", "паспорт"),
    "driving-licence": ("driving", "juhiluba", "juhilo", "водительск"),
    "unemployment": ("unemploy", "töötu", "безработ"),
    "birth-registration": ("birth", "sünn", "рожден"),
    "public-holidays": ("holiday", "püha", "праздн"),
}


def _kind_ok(kind: str, expect: Mapping[str, Any], seen: Observed) -> str | None:
    """None when `seen` is a reply of `kind`, else why not."""
    capabilities = _as_list(expect.get("capability"))
    wanted = _endpoints(capabilities)
    if kind == "api_answer":
        if not seen.called_ok:
            return "no successful API call"
        if wanted and not wanted <= set(seen.called_ok):
            return f"called {sorted(set(seen.called_ok))}, expected {sorted(wanted)}"
        return None
    if kind == "ask":
        if not seen.asked:
            return "did not ask"
        if wanted and not wanted & set(seen.question_endpoints):
            return f"asked for {list(seen.question_endpoints)}, expected {sorted(wanted)}"
        return None
    if kind == "knowledge":
        if not seen.knowledge:
            return f"not a knowledge answer ({seen.workflow})"
        topic = str(expect.get("topic") or "")
        if topic and not any(
            any(w in fold(src) for w in (fold(x) for x in _TOPIC_WORDS.get(topic, (topic,))))
            for src in seen.sources
        ):
            return f"sources {list(seen.sources)} are not the {topic} page"
        return None
    if kind in ("explain", "not_found"):
        # Explained at the question or in the answer: what matters is that no data of
        # another kind is served and the reply is not empty (the facts say the rest).
        if seen.called_ok and wanted and not (set(seen.called_ok) <= wanted):
            return f"called {sorted(set(seen.called_ok))}"
        if seen.knowledge:
            return "answered from the knowledge base"
        return None
    if kind in ("refuse", "out_of_scope"):
        if seen.called or seen.asked:
            return "called or asked for an API instead of declining"
        if seen.knowledge:
            return "answered from the knowledge base instead of declining"
        return None
    if kind == "small_talk":
        if seen.called or seen.asked or seen.knowledge:
            return "treated small talk as a request"
        if "out_of_domain" in seen.outcome.lower():
            return "answered small talk as out of domain"
        return None
    return f"unknown kind {kind!r}"


def judge_kind(expect: Mapping[str, Any], seen: Observed) -> Verdict:
    verdict = Verdict()
    if seen.error and not seen.content:
        verdict.fail(f"error: {seen.error}")
        return verdict
    kinds = _as_list(expect.get("kind"))
    why = [_kind_ok(k, expect, seen) for k in kinds]
    if kinds and all(w is not None for w in why):
        verdict.fail("; ".join(w for w in why if w))
    return verdict


def judge_turn(expect: Mapping[str, Any], seen: Observed, language: str) -> Verdict:
    verdict = judge_kind(expect, seen)
    text = judge_text(expect, seen.content, language)
    verdict.passed = verdict.passed and text.passed
    verdict.reasons += text.reasons
    return verdict
