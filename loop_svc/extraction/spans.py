"""Free-text values inside a sentence: names (capitalised spans), places after a
preposition, and clock times.

"I am looking for something in San Fran." → place "San Fran"; "from Fresno, CA to SD"
→ origin "Fresno", destination "SD"; "at 6:45 am" → 06:45. Used for text parameters
that carry names (cities, locations, titles), so a reply gives the name, not the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from loop_svc.extraction.text import outside

# Capitalised words that open sentences or are ordinary words, never names on their own.
_COMMON = frozenset(
    """
    i i'm i'd i'll i've im id ill yes no not can could would will should please that that's thats this
    these those what what's whats when where which who why how thanks thank okay ok sure great sounds
    sound find search book get let lets let's my is are do does did also and but so hi hello hey maybe
    actually something anything someone check look the a an it it's its there they we you your yeah
    yep nope perfect good nice cool awesome alright oh well now then just any some want need like
    help show tell give make reserve buy am was were be been have has had go going to for in on at
    from with by of or if as near around about all one two three four five six seven eight nine ten
    none nothing everything fine correct right wrong sorry excuse wait hmm um uh really very much many
    more less other another same again first last next today tomorrow tonight morning
    afternoon evening night day week month year time date price cheap expensive moderate
    monday tuesday wednesday thursday friday saturday sunday january february march april may june
    july august september october november december yup nope yea ya hmm okey alright
    booking book booked search searching looking found here sorry unfortunately successfully confirmed
    shall may might let's lets there're here's it'll i've you'd you're they're we're absolutely definitely
    certainly exactly indeed done thank's thx please
    """.split()
)
_JOINERS = frozenset({"of", "the", "de", "la", "le", "del", "da", "and", "&", "vs", "vs.", "n"})
# "St. Helena", "Mt. View": a period that does not end the name.
_ABBREVIATIONS = frozenset({"st.", "mt.", "ft.", "dr.", "pt.", "mr.", "mrs.", "ms.", "jr."})
_TOKEN = re.compile(r"[\w'’&.-]+")
_PLACE_PREPOSITIONS = {
    "in": "in",
    "at": "in",
    "around": "in",
    "near": "in",
    "within": "in",
    "from": "from",
    "to": "to",
    "into": "to",
}


@dataclass(frozen=True)
class Span:
    value: str
    start: int
    end: int
    # The preposition just before the span: "in", "from" or "to" (see _PLACE_PREPOSITIONS).
    preposition: str | None = None


def is_common_word(token: str) -> bool:
    return token.lower().strip(".,;:!?'’") in _COMMON


def _is_name_word(token: str) -> bool:
    if token.lower().strip(".") in _COMMON:
        return False
    return token[:1].isupper() or (token[:1].isdigit() and any(c.isalpha() for c in token))


# A title or credential after a name and a comma: "Anne Han, M.D.", "Claudio A Bet, Inc".
_CREDENTIAL = re.compile(r"^(?:M\.?D|MD|DO|DDS|DMD|PhD|Inc|LLC|Ltd|Jr|Sr)$")


def _starts_name(tokens: list[tuple[str, int]], i: int, text: str) -> bool:
    """A word that opens a name although it is no name word alone: an initial before an
    initial ("A J Dental Lab"), a house number before a street ("1688 Clayton Road"), a
    capitalised ordinary word inside a sentence ("book The Parc Hotel", "Great Clips")."""
    word, start = tokens[i]
    following = [t for t, _ in tokens[i + 1 : i + 3]]
    pairs = zip(tokens[i : i + 2], tokens[i + 1 : i + 3], strict=False)
    joined = all(not text[a + len(w) : b].strip() for (w, a), (_, b) in pairs)
    if (
        len(word) == 1
        and word.isupper()
        and following[:1]
        and len(following[0]) == 1
        and following[0].isupper()
    ):
        return True
    if word.isdigit() and 2 <= len(word) <= 5 and len(following) == 2 and joined:
        return all(_is_name_word(t) and not t.isdigit() for t in following)
    if word[:1].isupper() and word not in ("I", "A") and following and _is_name_word(following[0]):
        # "book The Parc Hotel", "What about Great Clips": an ordinary word with a capital
        # inside a sentence, right before a name, is the name's own first word.
        return bool(text[:start].strip()) and text[:start].rstrip()[-1] not in ".!?"
    return False


def name_spans(text: str, taken: Sequence[tuple[int, int]] = ()) -> list[Span]:
    """Runs of capitalised words ("Best Western Plus Las Vegas West", "Arizona Vs La
    Dodgers"), joined by small words or a spaced dash ("Access Dental - Santa Rosa"),
    with a credential after a comma ("Anne Han, M.D."), outside `taken`, with the
    preposition before them."""
    tokens = [(m.group(0).rstrip(".'’"), m.start()) for m in _TOKEN.finditer(text)]
    spans: list[Span] = []
    i = 0
    while i < len(tokens):
        word, start = tokens[i]
        opens = _is_name_word(word) or _starts_name(tokens, i, text)
        if not word or not opens or not outside(list(taken), start, start + len(word)):
            i += 1
            continue
        j = i
        end = start + len(word)
        while j + 1 < len(tokens):
            nxt, nxt_start = tokens[j + 1]
            between = text[end:nxt_start]
            last = tokens[j][0]
            if between.strip() == "," and _CREDENTIAL.match(nxt.replace(".", "") if "." in nxt else nxt):
                j += 1
                end = nxt_start + len(nxt)
                end += 1 if text[end : end + 1] == "." and nxt.count(".") else 0  # "M.D."
                break
            if nxt in ("-", "–") and between == " " and j + 2 < len(tokens):
                after, after_start = tokens[j + 2]
                if text[nxt_start + 1 : after_start] == " " and _is_name_word(after):
                    j += 2
                    end = after_start + len(after)
                    continue
            if len(nxt) == 1 and nxt.isupper() and not between.strip():
                j += 1  # an initial: "Claudio A Bet"
                end = nxt_start + len(nxt)
                continue
            # "St. Helena", "Dr. Susana M. Chou": a period after an abbreviation or an initial.
            abbreviation = f"{last.lower()}." in _ABBREVIATIONS or (len(last) == 1 and last.isupper())
            if any(c in between for c in ",;:!?()") or ("." in between and not abbreviation):
                break
            if not outside(list(taken), nxt_start, nxt_start + len(nxt)):
                break
            if _is_name_word(nxt) or (
                nxt.lower() in _JOINERS
                and j + 2 < len(tokens)
                and _is_name_word(tokens[j + 2][0])
                and not any(c in text[nxt_start : tokens[j + 2][1]] for c in ",;:!?")
            ):
                j += 1
                end = nxt_start + len(nxt)
                continue
            break
        preposition = None
        if i > 0:
            before = tokens[i - 1][0].lower()
            preposition = _PLACE_PREPOSITIONS.get(before)
        spans.append(Span(text[start:end], start, end, preposition))
        i = j + 1
    return spans


_PART = r"(?:in the (?:morning|afternoon|evening)|at night|tonight|a\.?m\.?|p\.?m\.?)"
_HOUR_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_HOUR = r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_CLOCK = re.compile(
    rf"(?<![\d:])(?:(?P<before>morning|afternoon|evening|night)\s+)?"
    rf"(?P<h>{_HOUR})(?::(?P<m>\d{{2}}))?(?:\s*o'?clock)?\s*(?P<after>{_PART})?(?![\w:])",
    re.I,
)
_NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)
_HALF_PAST = re.compile(rf"\bhalf past ({_HOUR})\s*({_PART})?", re.I)
_QUARTER = re.compile(rf"\bquarter (past|to) ({_HOUR})\s*({_PART})?", re.I)


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _HOUR_WORDS[word.lower()]


@dataclass(frozen=True)
class Clock:
    value: str  # HH:MM, 24-hour
    start: int
    end: int


def _afternoon(marker: str | None) -> bool | None:
    if not marker:
        return None
    lowered = marker.lower()
    if lowered.startswith("p") or "afternoon" in lowered or "evening" in lowered or "night" in lowered:
        return True
    return False


def _hhmm(hour: int, minute: int, pm: bool | None) -> str | None:
    if pm is True and hour < 12:
        hour += 12
    if pm is False and hour == 12:
        hour = 0
    if not (0 <= hour < 24 and 0 <= minute < 60):
        return None
    return f"{hour:02d}:{minute:02d}"


def clock_times(text: str) -> list[Clock]:
    found: list[Clock] = []
    taken: list[tuple[int, int]] = []

    def add(value: str | None, start: int, end: int) -> None:
        if value is not None and outside(taken, start, end):
            taken.append((start, end))
            found.append(Clock(value, start, end))

    for m in _HALF_PAST.finditer(text):
        add(_hhmm(_hour(m[1]), 30, _afternoon(m[2])), m.start(), m.end())
    for m in _QUARTER.finditer(text):
        hour, minute = _hour(m[2]), 15
        if m[1].lower() == "to":
            hour, minute = hour - 1, 45
        add(_hhmm(hour, minute, _afternoon(m[3])), m.start(), m.end())
    for m in _NOON.finditer(text):
        add("00:00" if m[1].lower() == "midnight" else "12:00", m.start(), m.end())
    for m in _CLOCK.finditer(text):
        part = m["after"] or m["before"]
        # A bare number is a time only with a part of the day or minutes ("7:30", "7 pm",
        # "evening 7") or after "at" ("at 7").
        after_at = re.search(r"\b(?:at|around|by|from)\s+$", text[max(0, m.start() - 8) : m.start()])
        if not (part or m["m"] or after_at):
            continue
        if not m["h"].isdigit() and not part:
            continue
        add(_hhmm(_hour(m["h"]), int(m["m"] or 0), _afternoon(part)), m.start(), m.end())
    found.sort(key=lambda c: c.start)
    return found
