"""Does a word of a question name a field or a value of an API result? Matching that
holds across inflection, diacritics and the three languages' labels: "maakonnas" names
the field labelled "Maakond", "postiindeks" the one labelled "Postiindeks",
"against" the key `against`, "ulikooli" the value "Ülikooli tn 18".

Shared by the loop (is a follow-up about the last result's fields?) and the caller
(which field is asked, measured or compared). Nothing here knows any API's fields:
they come from the result's keys and the endpoint's labels.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import snowballstemmer

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-zà-ÿ0-9])(?=[A-ZÀ-Þ])")
_STEMMERS = ("english", "estonian", "russian")
_local = threading.local()


def fold(text: str) -> str:
    """Lower case, no diacritics, ё → е."""
    out = []
    for ch in text.lower().replace("ё", "е"):
        if "\u0400" <= ch <= "\u04ff":
            out.append(ch)  # й stays й
        else:
            out.extend(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return "".join(out)


def split_words(text: str) -> list[str]:
    """'postalCode' → ['postal', 'code']; 'Ülikooli tn 18' → ['ulikooli', 'tn', '18']."""
    return [fold(w) for w in _WORD.findall(_CAMEL.sub(" ", text))]


# Bounded: a word's stems never change, and one answer compares every word of the
# question with every key and label of the result (hundreds of stems per turn, most of
# them the same few dozen words), which made stemming the largest cost of a turn.
@lru_cache(maxsize=16384)
def _stems(word: str) -> frozenset[str]:
    # Snowball stemmers keep state while they work: one set per thread.
    stemmers: dict[str, snowballstemmer.stemmer] = _local.__dict__.setdefault("stemmers", {})
    if not stemmers:
        for name in _STEMMERS:
            stemmers[name] = snowballstemmer.stemmer(name)
    return frozenset(str(stemmer.stemWord(word)) for stemmer in stemmers.values())


def words_match(a: str, b: str) -> bool:
    """Two folded words are one word in another form: equal, one stem, or a long shared
    beginning (Estonian and Russian case endings the stemmers leave: "maakonnas" /
    "maakond", "erapooletuks" / "erapooletu")."""
    if a == b:
        return True
    shorter = min(len(a), len(b))
    if shorter < 3 or a.isdigit() or b.isdigit():
        return False
    if _stems(a) & _stems(b) and shorter >= 4:
        return True
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    if common == shorter >= 5:
        return True  # an Estonian compound's first part: "vastu" in "vastuhääli"
    return common >= max(4, shorter - 2) and common * 10 >= max(len(a), len(b)) * 6


def matches_any(word: str, candidates: Iterable[str]) -> bool:
    return any(words_match(word, candidate) for candidate in candidates)


# How a yes/no outcome is said in the three languages, when the result has one flag to
# say it of ("which of those passed", "millised kukkusid läbi", "какие не прошли"): the
# concept, not any field's name. Folded; matched in their inflected forms.
OUTCOME_YES = frozenset(
    """pass passed passing accepted adopted approved succeeded successful carried
    labi laks voeti voetud kiideti kinnitati прошел прошли прошло прошла принят приняли принято
    одобрен одобрили утвержден""".split()
)
OUTCOME_NO = frozenset(
    """fail failed failing rejected defeated declined refused kukkus kukkusid kukkunud tagasi lukati
    lukatud провал провалился провалились провалены отклонен отклонили отвергнут отвергли""".split()
)


def says_outcome(term: str) -> bool:
    """The word says how a decision ended, either way ("läbi", "rejected", "приняли")."""
    folded = fold(term)
    return any(words_match(folded, fold(w)) for w in OUTCOME_YES | OUTCOME_NO)


def same_word(a: str, b: str) -> bool:
    """Stricter than `words_match`, for picking rows by their text: one word in another
    case form ("riigikogus" / "Riigikogu", "käibemaksu" / "Käibemaksuseaduse"), not two
    words sharing a root ("hääletati" / "hääletus")."""
    if a == b:
        return True
    shorter = min(len(a), len(b))
    if shorter < 4 or a.isdigit() or b.isdigit():
        return False
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return common >= shorter - 1 and common >= 4


def same_as_any(word: str, candidates: Iterable[str]) -> bool:
    return any(same_word(word, candidate) for candidate in candidates)


def phrase_hits(terms: Iterable[str], text: str) -> int:
    """How many of `terms` (folded words) occur in `text` in some form."""
    words = split_words(text)
    return sum(1 for term in terms if matches_any(term, words))
