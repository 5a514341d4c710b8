"""Street addresses written anywhere in a message, the way people type them, given in
the form an Estonian address register writes them:

    "postal code of parnu mnt 10 tallinn"   → "Parnu mnt 10, Tallinn"
    "ringtee 75 tartus"                     → "Ringtee 75, Tartu"
    "какой индекс у виру 4 в таллине"       → "Viru 4, Tallin"
    "Нарвское шоссе 5, Таллинн"             → "Narva mnt 5, Tallinn"

An address is a house number (12, 12a, 12-3, 12/3) with the street's words before it —
one name word before a street-type word (tn, mnt, pst, tee, plats, street, шоссе, улица…),
otherwise up to two (a town may come first: "pärnu rüütli 1") — stopping at the
sentence's own words (question words, verbs, what is asked about the address), and
optionally a town after it. Upper or lower case, with or without diacritics.

Street types are written as the register abbreviates them (tänav → tn, maantee → mnt,
шоссе → mnt). A town in a case form is put in its base form: Estonian locatives by their
ending ("tartus" → "Tartu", "tallinnas" → "Tallinn"), Russian ones by pymorphy3's lemma
("в нарве" → "нарва"). Cyrillic is written in Estonian Latin letters by the reverse of the
Estonian–Russian transcription ("Пярну" → "Pärnu", "Юликооли" → "Ülikooli", "Рюйтли" →
"Rüütli"): the Russian romanisations that cyrtranslit or iuliia give ("Pyarnu",
"Yulikooli") are never the register's spelling. A Russian adjective that names a town
("Нарвское шоссе") becomes that town's name ("Narva mnt").
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from loop_svc.extraction.spans import is_common_word
from loop_svc.extraction.text import outside
from services.text import STOPWORDS

# Street-type words as people write them → as the register abbreviates them.
_TYPES: dict[str, str] = {
    **dict.fromkeys(("tn", "tn.", "tänav", "tanav", "street", "st", "st.", "str", "str."), "tn"),
    **dict.fromkeys(("mnt", "mnt.", "maantee", "road", "rd", "rd."), "mnt"),
    **dict.fromkeys(("pst", "pst.", "puiestee", "avenue", "ave", "ave.", "boulevard"), "pst"),
    **dict.fromkeys(("tee", "теэ", "дорога"), "tee"),
    **dict.fromkeys(("plats", "väljak", "valjak", "square", "площадь", "плац", "пл."), "plats"),
    **dict.fromkeys(("põik", "poik", "lane", "переулок", "пер."), "põik"),
    **dict.fromkeys(("улица", "ул", "ул."), "tn"),
    **dict.fromkeys(("шоссе", "мнт"), "mnt"),
    "тн": "tn",
    "пст": "pst",
    **dict.fromkeys(("проспект", "пр.", "бульвар"), "pst"),
}
# Personal and possessive pronouns (a closed class; Russian ones pymorphy3 tags NPRO): no
# town or street is named so, yet "Rüütli 1 tema" or "ei, sina" read them as one.
PERSONAL_PRONOUNS = frozenset(
    """
    i me my mine myself you your yours yourself he him his she her hers it its we us our ours
    they them their theirs
    mina ma minu mu mind minul mul minult minule mulle minuga sina sa sinu su sind sinul sul
    sinult sulle sinuga tema ta teda temal tal temalt talle temaga meie me meid meil meilt
    meile meiega teie te teid teil teilt teile teiega nemad nad nende neid neil neilt neile
    nendega oma enda ise
    """.split()
)
# Words of the sentence around an address, never part of it: question words, verbs and
# prepositions, and what people ask about an address (its postal code, county, district).
_NOT_ADDRESS = (
    frozenset(
        """
    what where which when how is are the a an my of for in at on to find show tell give please
    postal post code zip index county district municipality parish coordinates coords coordinats
    official full address addresses register located lies street town city whats what's
    mis kus kuidas millal milline millises millisel mitu kas ja ning aga või ka see selle on oli
    asub asuvad otsi leia näita naita anna palun mu minu mul minul postiindeks postiindex indeks sihtnumber
    maakond maakonnas maakonda linnaosa linnaosas vald vallas omavalitsus koordinaadid aadress
    aadressi aadressil registris vaid ainult
    meant mean mõtlesin mõtlen motlesin motlen pidasin
    sorry sorri oops yes yeah yep jah jaa vabandust vabandage vabandan muidugi loomulikult
    извини извините простите конечно
    а и не ой но или же ли да нет только
    какой какая какое какие где что это у в во на по для мой моя мне найди покажи скажи адрес адреса
    индекс уезд уезде район районе волость волости координаты находится полный официальный
    registry реестр реестра реестре реестру реестре базе базы
    """.split()
    )
    | PERSONAL_PRONOUNS
)

_CYRILLIC = re.compile(r"[а-яё]", re.I)
_TOKEN = re.compile(r"[^\W_][\w'’.-]*", re.UNICODE)
_HOUSE = re.compile(r"^\d{1,4}[a-zа-я]?(?:[-/]\d{1,4}[a-zа-я]?)?$", re.I)
_NAME = re.compile(r"^[^\W\d_][\w'’-]*$", re.UNICODE)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_PREPOSITIONS = frozenset({"in", "at", "в", "во", ","})
# Estonian locative endings a town takes ("Tartus", "Tallinnast", "Pärnusse").
_LOCATIVE = ("sse", "st", "s")
_VOWELS = "aeiouõäöüаеёиоуыэюя"

# The reverse of the Estonian–Russian transcription of Estonian names.
_ESTONIAN_LETTERS = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "ö", "ж": "ž", "з": "s",
    "и": "i", "й": "i", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r",
    "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "ts", "ч": "tš", "ш": "š", "щ": "štš",
    "ъ": "", "ы": "õ", "ь": "", "э": "e", "ю": "ü",
}  # fmt: skip


def estonian_latin(word: str) -> str:
    """A Cyrillic spelling of an Estonian name in Estonian letters: я is ä after a
    consonant and ja elsewhere, юй is üü ("Рюйтли" → "Rüütli"), ия at the end is ia."""
    lower = word.lower()
    out = []
    for i, ch in enumerate(lower):
        before = lower[i - 1] if i else ""
        if ch == "я":
            if before == "и" and i == len(lower) - 1:
                out.append("a")
            elif before and before not in _VOWELS and before not in "ьъ-":
                out.append("ä")
            else:
                out.append("ja")
        elif ch == "й" and before == "ю":
            out.append("ü")
        else:
            out.append(_ESTONIAN_LETTERS.get(ch, ch))
    text = "".join(out)
    return text[:1].upper() + text[1:] if word[:1].isupper() else text


_local = threading.local()


@functools.cache
def _morph_class() -> Any:
    import pymorphy3

    return pymorphy3.MorphAnalyzer


def _russian_lemma(word: str, pos: str) -> str | None:
    analyzer = getattr(_local, "morph", None)
    if analyzer is None:
        analyzer = _local.morph = _morph_class()()
    for parse in analyzer.parse(word.lower()):
        if parse.tag.POS == pos:
            return str(parse.normal_form)
    return None


def _town_from_adjective(word: str) -> str | None:
    """ "Нарвское" → "нарва", "Пярнуское" → "пярну": the town a Russian street adjective names."""
    lemma = _russian_lemma(word, "ADJF")
    if lemma is None or not lemma.endswith("ский"):
        return None
    stem = lemma[: -len("ский")]
    return stem if stem[-1:] in _VOWELS else f"{stem}а"


def _base_town(word: str, lang: str) -> str:
    if _CYRILLIC.search(word):
        lemma = _russian_lemma(word, "NOUN") or word.lower()
        return estonian_latin(lemma)
    lower = word.lower()
    if lang == "et":
        for ending in _LOCATIVE:
            stem = lower[: -len(ending)]
            if lower.endswith(ending) and len(stem) >= 4:
                # A consonant-stem town's genitive adds a vowel: "Tallinna-s" → "Tallinn".
                if stem[-1] in "aeiu" and len(stem) > 4 and stem[-2] == stem[-3] and stem[-2] not in _VOWELS:
                    stem = stem[:-1]
                lower = stem
                break
    return lower


def _name(word: str) -> str:
    latin = estonian_latin(word) if _CYRILLIC.search(word) else word
    # Each part of a double name: "suur-sepa" → "Suur-Sepa".
    return "-".join(part[:1].upper() + part[1:] for part in latin.split("-"))


@dataclass(frozen=True)
class AddressMention:
    value: str
    start: int
    end: int
    # A town alone ("in parnu"): with a street already known, the town of that street.
    town_only: bool = False


@dataclass(frozen=True)
class _Token:
    text: str
    start: int
    end: int


# Russian parts of speech no street or town name is ("через", "это", "находится"), for
# the words pymorphy3's dictionary knows.
_NOT_NAME_POS = frozenset({"PREP", "CONJ", "PRCL", "NPRO", "INTJ", "VERB", "INFN", "ADVB", "PRED", "NUMR"})


def _russian_function_word(word: str) -> bool:
    analyzer = getattr(_local, "morph", None)
    if analyzer is None:
        analyzer = _local.morph = _morph_class()()
    if not analyzer.word_is_known(word.lower()):
        return False  # an unknown word's guessed part of speech ("Рюйтли": a verb?) says nothing
    parses = analyzer.parse(word.lower())
    # A pronominal adjective ("её", "наш": Apro) is a pronoun too, whatever its part of speech.
    return bool(parses) and (parses[0].tag.POS in _NOT_NAME_POS or "Apro" in parses[0].tag)


def _russian_adjective(word: str) -> bool:
    analyzer = getattr(_local, "morph", None)
    if analyzer is None:
        analyzer = _local.morph = _morph_class()()
    parses = analyzer.parse(word.lower())
    return analyzer.word_is_known(word.lower()) and bool(parses) and parses[0].tag.POS == "ADJF"


def sentence_word(word: str) -> bool:
    """A word of the sentence around a value (a question word, a verb, "my", "is"), no name."""
    lower = word.lower().strip(".,;:!?")
    # The function words of the three languages ("siis", "nüüd", "ju"): "ok siis viru 4" is Viru 4.
    return lower in _NOT_ADDRESS or lower in STOPWORDS or is_common_word(lower)


def _street_word(token: _Token) -> bool:
    lower = token.text.lower()
    if lower in _TYPES:
        return True
    if not _NAME.match(token.text) or sentence_word(lower):
        return False
    return not (_CYRILLIC.search(lower) and _russian_function_word(lower))


def _joined(text: str, left: _Token, right: _Token) -> bool:
    """Two tokens with only spaces between them (no comma or sentence end)."""
    return not text[left.end : right.start].strip()


def find_address(text: str, taken: Sequence[tuple[int, int]] = (), lang: str = "en") -> AddressMention | None:
    tokens = []
    for m in _TOKEN.finditer(text):
        word = m.group(0).rstrip(".,;:!?") if m.group(0).lower() not in _TYPES else m.group(0)
        tokens.append(_Token(word, m.start(), m.start() + len(word)))
    mixed_case = text != text.lower() and text != text.upper()
    for i, token in enumerate(tokens):
        if not _HOUSE.match(token.text) or not outside(list(taken), token.start, token.end):
            continue
        street = _street_before(text, tokens, i, mixed_case)
        if street is None:
            continue
        closing = street[-1].text
        if _CYRILLIC.search(closing) and closing.lower() not in _TYPES and _russian_adjective(closing):
            continue  # "последние 5": a Russian street named by an adjective has its type ("Нарвское шоссе")
        if _YEAR.match(token.text) and tokens[i - 1].text.lower() not in _TYPES:
            continue
        town, end = _town_after(text, tokens, i, mixed_case, lang)
        written: list[str] = []
        for j, part in enumerate(street):
            lower = part.text.lower()
            following = street[j + 1].text.lower() if j + 1 < len(street) else ""
            if lower in _TYPES:
                written.append(_TYPES[lower])
            elif _CYRILLIC.search(part.text) and following in _TYPES:
                town_name = _town_from_adjective(part.text)
                written.append(_name(town_name) if town_name else _name(part.text))
            else:
                written.append(_name(part.text))
        value = f"{' '.join(written)} {token.text}"
        if town:
            value += f", {_name(town)}"
        return AddressMention(value, street[0].start, end)
    return None


def _street_before(text: str, tokens: list[_Token], house: int, mixed_case: bool) -> list[_Token] | None:
    street: list[_Token] = []
    names = 0
    j = house - 1
    while j >= 0 and _joined(text, tokens[j], tokens[j + 1]) and _street_word(tokens[j]):
        is_type = tokens[j].text.lower() in _TYPES
        limit = 1 if any(t.text.lower() in _TYPES for t in street) else 2
        if not is_type and names >= limit:
            break
        street.insert(0, tokens[j])
        names += 0 if is_type else 1
        j -= 1
    if mixed_case:
        # "asub Linnu tee 1": in a sentence written with capitals the street starts at one.
        while (
            len(street) > 1 and street[0].text[:1].islower() and any(t.text[:1].isupper() for t in street[1:])
        ):
            if street[0].text.lower() in _TYPES:
                break
            street.pop(0)
    if names == 0 or not street:
        return None
    return street


def _town_after(text: str, tokens: list[_Token], house: int, mixed_case: bool, lang: str) -> tuple[str, int]:
    end = tokens[house].end
    k = house + 1
    if k >= len(tokens):
        return "", end
    between = text[tokens[house].end : tokens[k].start].strip()
    marked = "," in between
    if between not in ("", ","):
        return "", end
    if (
        tokens[k].text.lower() in _PREPOSITIONS
        and k + 1 < len(tokens)
        and _joined(text, tokens[k], tokens[k + 1])
    ):
        marked = True
        k += 1
    candidate = tokens[k]
    if not _street_word(candidate) or candidate.text.lower() in _TYPES:
        return "", end
    after = tokens[k + 1] if k + 1 < len(tokens) else None
    closes = after is None or not _joined(text, candidate, after) or not _street_word(after)
    capitalised = mixed_case and candidate.text[:1].isupper()
    if not (marked or capitalised or closes):
        return "", end
    return _base_town(candidate.text, lang), candidate.end


# An interjection of repeated letters opens many corrections ("ahh sorry", "ааа я перепутал").
INTERJECTION = r"(?:a+h+|o+h+|h+m+|u+h+|а{2,}х*|о{2,}х*|э{2,})"
_INTERJECTION_WORD = re.compile(rf"^{INTERJECTION}$", re.I)
_HOUSE_IN = re.compile(r"\d")


def corrected_town(rest: str, lang: str) -> str | None:
    """The town a correction names when it names nothing else ("meant tartu", "tartus
    muidugi", "в тарту конечно", "in Pärnu"), in its base form; `rest` is the message
    without its correction words. The town is the name after a place preposition, else
    the one Estonian word in a locative case, else the one name word left; a house
    number means a whole new address, no town."""
    if _HOUSE_IN.search(rest):
        return None
    tokens = [t for t in _TOKEN.findall(rest) if not _INTERJECTION_WORD.match(t.rstrip(".,;:!?"))]
    tokens = [t.rstrip(".,;:!?") for t in tokens]
    names: list[tuple[int, str]] = []
    for i, word in enumerate(tokens):
        lower = word.lower()
        if len(lower) < 3 or not _NAME.match(word) or lower in _TYPES or sentence_word(lower):
            continue
        if _CYRILLIC.search(lower) and _russian_function_word(lower):
            continue
        names.append((i, word))
    if not names:
        return None
    after_preposition = [w for i, w in names if i and tokens[i - 1].lower() in _PREPOSITIONS]
    if len(after_preposition) == 1:
        return _base_town(after_preposition[0], lang)
    if lang == "et":
        locative = [w for _, w in names if _base_town(w, lang) != w.lower()]
        if len(locative) == 1:
            return _base_town(locative[0], lang)
    if len(names) == 1:
        return _base_town(names[0][1], lang)
    return None


def with_town(address: str, town: str) -> str | None:
    """The address with its town replaced by (or, with none, completed with) `town`:
    "Raekoja plats 1, Tallinn" + "tartu" → "Raekoja plats 1, Tartu", "Raekoja plats" +
    "tartu" → "Raekoja plats, Tartu"; None when the address has no street to keep (no
    house number, no street type: a town alone)."""
    street = address.split(",", 1)[0].strip()
    if not _HOUSE_IN.search(street) and not any(_street_type(w) for w in street.split()[1:]):
        return None
    return f"{street}, {_name(town)}"


# Words of the sentence in another form than the list's ("addresses", "aadressid",
# "postiindeksit", "адресов"): the same stem (snowball's, for the word's script), or the
# list's word with a case ending of up to three letters after it.
_CASE_ENDING = 3


@functools.cache
def _stemmers() -> dict[str, Any]:
    import snowballstemmer

    return {lang: snowballstemmer.stemmer(name) for lang, name in (("en", "english"), ("ru", "russian"))}


@functools.cache
def _sentence_stems() -> frozenset[str]:
    stemmers = _stemmers()
    return frozenset(
        stemmers["ru" if _CYRILLIC.search(word) else "en"].stemWord(word) for word in _NOT_ADDRESS
    )


def _sentence_form(word: str) -> bool:
    lower = word.lower().strip(".,;:!?")
    if sentence_word(lower):
        return True
    if _stemmers()["ru" if _CYRILLIC.search(lower) else "en"].stemWord(lower) in _sentence_stems():
        return True
    return any(
        len(known) >= 5 and lower.startswith(known) and len(lower) - len(known) <= _CASE_ENDING
        for known in _NOT_ADDRESS
    )


def _street_type(word: str) -> str | None:
    """The register's street type a word names, in any case form ("platsi", "puiesteel",
    "tänava", "площади", "улице"): the type word with a case ending after it."""
    lower = word.lower().strip(".,;:!?")
    if lower in _TYPES:
        return _TYPES[lower]
    if _CYRILLIC.search(lower):
        stem = _stemmers()["ru"].stemWord(lower)
        return next(
            (t for w, t in _TYPES.items() if len(w) >= 4 and _stemmers()["ru"].stemWord(w) == stem), None
        )
    return next(
        (
            t
            for w, t in _TYPES.items()
            if len(w) >= 4 and lower.startswith(w[:-1]) and 0 <= len(lower) - len(w) <= 2
        ),
        None,
    )


# Where a town's addresses come from: "addresses from tartu", "из Тарту".
_FROM = frozenset({"from", "of", "из"})


def _town_marked(text: str, tokens: list[_Token], i: int, lang: str) -> bool:
    """Whether a lone name is written as a place: after a place preposition ("in parnu",
    "в пярну", "addresses from tartu"), in an Estonian place case ("pärnus", "tartust"), or
    as the owner of the addresses right before the word ("tartu aadressid", "tartu addresses")."""
    if (
        i > 0
        and tokens[i - 1].text.lower() in _PREPOSITIONS | _FROM
        and _joined(text, tokens[i - 1], tokens[i])
    ):
        return True
    if (
        i + 1 < len(tokens)
        and _ADDRESS_WORD.fullmatch(tokens[i + 1].text)
        and _joined(text, tokens[i], tokens[i + 1])
    ):
        return True
    return lang == "et" and _base_town(tokens[i].text, lang) != tokens[i].text.lower()


# A town alone is an address query only in a question about addresses ("what addresses
# do you have in parnu"): "kesklinnas" alone, or "holidays in Finland", is not one.
_ADDRESS_WORD = re.compile(r"(?<!\w)(?:address\w*|aadress\w*|адрес\w*)", re.I)


def find_street_or_town(
    text: str, taken: Sequence[tuple[int, int]] = (), lang: str = "en"
) -> AddressMention | None:
    """An address named without a house number: a street by its name and type word
    ("raekoja platsi postiindeks" → "Raekoja plats", "ranna puiestee" → "Ranna pst"),
    optionally with its town after it, or a town alone written as a place in a question about
    addresses ("what addresses do you have in parnu" → "Parnu", "mis aadressid pärnus
    registris on" → "Pärnu"). The
    register lists every address of that street or town. The sentence's own words, in any
    form, are never a name."""
    tokens = [
        _Token(m.group(0).rstrip(".,;:!?"), m.start(), m.start() + len(m.group(0).rstrip(".,;:!?")))
        for m in _TOKEN.finditer(text)
        if outside(list(taken), m.start(), m.end())
    ]
    if any(_HOUSE_IN.search(t.text) for t in tokens):
        return None  # a number is a house number, or a value of something else: not this
    named = [
        i
        for i, t in enumerate(tokens)
        if _street_type(t.text) is None and _street_word(t) and not _sentence_form(t.text)
    ]
    for i, token in enumerate(tokens):
        kind = _street_type(token.text)
        if kind is None or i == 0 or (i - 1) not in named or not _joined(text, tokens[i - 1], token):
            continue
        value = f"{_name(tokens[i - 1].text)} {kind}"
        end = token.end
        after = [j for j in named if j > i]
        if after and (
            after[0] == i + 1 or (after[0] == i + 2 and tokens[i + 1].text.lower() in _PREPOSITIONS)
        ):
            value += f", {_name(_base_town(tokens[after[0]].text, lang))}"
            end = tokens[after[0]].end
        return AddressMention(value, tokens[i - 1].start, end)
    if len(named) == 1 and _ADDRESS_WORD.search(text) and _town_marked(text, tokens, named[0], lang):
        town = tokens[named[0]]
        return AddressMention(_name(_base_town(town.text, lang)), town.start, town.end, town_only=True)
    return None


# Letters of a street name kept for the broadest search: a typo after them ("Petri" for
# "Peetri", "Akademia" for "Akadeemia") still finds the street by its first letters.
_NAME_PREFIX = 2
# Broader searches for one address at most: each is an HTTP call made only when the one
# before it found nothing.
MAX_BROADER = 4


def broader_addresses(address: str) -> list[str]:
    """Broader searches for an address the register may have almost as written, broadest
    last: the street without its house number (with its town, then alone: "Raekoja plats 1,
    Tartu" → "Raekoja plats, Tartu" finds "Raekoja plats 1a"), the town alone (a typo in the
    street: "Petri plats 5, Narva" → "Narva"), and the street by its first letters with the
    rest as written ("Akademia tee 3" → "Ak tee 3"). caller_svc tries them in order when the
    address finds nothing, and answers with the rows nearest to the address."""
    street, _, town = (part.strip() for part in address.partition(","))
    parts = street.split()
    house = parts[-1] if parts and _HOUSE.match(parts[-1]) and _HOUSE_IN.search(parts[-1]) else ""
    named = parts[:-1] if house else parts
    if not named:
        return []
    bare = " ".join(named)
    found: list[str] = []
    if house:
        if town:
            found.append(f"{bare}, {town}")
        found.append(bare)
    elif town:
        found.append(bare)
    if town:
        found.append(town)
    first = named[0]
    if house and len(first) > _NAME_PREFIX + 1 and first.isalpha() and first.lower() not in _TYPES:
        shortened = " ".join([first[:_NAME_PREFIX], *named[1:], *([house] if house else [])])
        found.append(f"{shortened}, {town}" if town else shortened)
    unique = [value for i, value in enumerate(found) if value and value not in found[:i] and value != address]
    return unique[:MAX_BROADER]
