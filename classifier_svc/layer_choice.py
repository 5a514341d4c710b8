"""Which layer answers: classes of questions that belong to the knowledge base or to
nobody, whatever endpoint their words resemble.

- Knowledge classes (`knowledge_class`): what a citizen asks about a procedure rather
  than a value an API returns — fees ("state fee", "riigilõiv", "госпошлина"), how to
  apply/renew/replace/register, validity and expiry, documents needed, deadlines,
  lost or stolen documents. Such a question goes to the knowledge base when it has a
  relevant passage, unless the citizen gives an identifier (a number shaped like one)
  for a service or an endpoint to look up.
- Out-of-scope topics (`uncovered_topic`): weather, recipes, restaurants and bars,
  sports results, jokes, films and music, lottery and shares, taxes other than the
  catalogue's, public-transport timetables. Such a message is out of
  scope — not an address search because it names a town — unless the catalogue itself
  covers the topic (its titles, descriptions and examples name it: a catalogue with a
  weather endpoint answers weather questions).
Both are word classes (classifier_svc/lexicon.py) in en/et/ru, not sentences.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from classifier_svc.lexicon import Concept, Lexicon
from classifier_svc.rag_aspects import Aspect, asks_necessity, aspects_of

KNOWLEDGE = Lexicon(
    [
        Concept.of(
            "fee",
            "state fee, fee, fees, charge",
            "riigilõiv, riigilõivu, lõiv, lõivu, tasu",
            "госпошлина, госпошлину, пошлина, пошлину, сбор",
        ),
        Concept.of(
            "procedure",
            "to apply, i apply, can apply, renew, renewal, replace, replacement, to register, do i register",
            "exchange my, get a new, obtain, pick up my new",
            "taotleda, taotlen, taotlemine, uuendada, uuendamine, vahetada, asendada, registreerida",
            "registreerimine, vormistada, kätte saada, saada uus",
            "оформить, оформление, продлить, продление, заменить, замена, прописаться, зарегистрировать",
            "регистрация, получить новый, обменять, подать заявление",
            "registering my, registering a, registering the",
        ),
        Concept.of(
            "validity",
            "valid, validity, expire, expires, expired, expiry",
            "kehtiv, kehtib, kehtivus, aegub, aegunud",
            "действителен, действует, срок действия, истекает, просрочен",
        ),
        Concept.of(
            "documents_needed",
            "documents do i need, what documents, required documents, what do i need, need to bring",
            "mis dokumente, milliseid dokumente, mida on vaja, mis mul vaja, vaja kaasa võtta",
            "какие документы, что нужно, нужны документы, что взять с собой",
        ),
        Concept.of(
            "lost",
            "lost, lose, stolen, missing, damaged, broken",
            "kaotasin, kaotanud, kadunud, kadus, varastati, varastatud, kahjustatud, katki",
            "потерял, потеряла, потерян, утерян, украли, украден, пропал, поврежден, сломан",
        ),
        Concept.of(
            "deadline",
            "deadline, how soon, how long does it take, how long will it take, within how many days",
            "tähtaeg, mitu päeva, kui kaua võtab, kui kiiresti, mis ajaks",
            "срок, за какой срок, сколько ждать, как долго, сколько времени",
        ),
        Concept.of(
            "eligibility",
            "who can get, am i eligible, entitled, eligibility, who is entitled, do i qualify, qualify for",
            "kellel on õigus, kas mul on õigus, õigus saada, on mulle ette nähtud, kas mulle makstakse",
            "кто имеет право, имею ли я право, право на получение, положено, положена, полагается",
            "могу ли я получить",
        ),
        # Whether a document will do ("is the ID card enough", "kas id-kaardist piisab",
        # "хватит ли ID-карты"): asked of a document (`_DOCUMENTS`), it is the page's.
        Concept.of(
            "enough",
            "enough, sufficient, suffice, suffices, will do, good enough",
            "piisab, piisa, piisaks, piisav, kõlbab, kõlbaks, sobib, sobiks",
            "хватит, хватает, хватит ли, достаточно, подойдет, подойдёт, сойдет, сойдёт",
        ),
    ]
)
# A document a citizen holds and a page tells how to get, renew and use: a procedure
# aspect or a need asked of it ("how much does a new passport cost", "kui palju pass
# maksab", "нужен ли паспорт или хватит ID-карты") is the knowledge base's question, even
# when a trip's country and weekend are named beside it (they are the trip, not a lookup).
_DOCUMENTS = Lexicon(
    [
        Concept.of(
            "document",
            "passport, passports, id card, id-card, idcard, identity card, driving licence, driving license",
            "driver's license, drivers license, residence permit",
            "pass, passi, passid, id-kaart, id-kaardi, id-kaardiga, idkaart, isikutunnistus",
            "juhiluba, juhiloa",
            "elamisluba, elamisloa",
            "паспорт, паспорта, id-карта, id-карты, ид-карта, айди-карта, удостоверение личности",
            "водительские права, водительское удостоверение, вид на жительство",
        ),
    ]
)

# What the mesh does not do (weather, restaurants, other taxes, ...): a topic found is refused.
TOPIC_CONCEPTS = [
    Concept.of(
        "weather",
        "weather, forecast, rain, snow, temperature",
        "ilm, ilma, ilmateade, ilmaennustus, vihm, lumi, temperatuur",
        "погода, погоду, прогноз погоды, дождь, снег, температура",
        "pogoda, pogodu",
    ),
    Concept.of(
        "cooking",
        "recipe, recipes, cook, cooking, bake, ingredients",
        "retsept, retsepti, küpsetada, valmistada süüa, koostisosad",
        "рецепт, рецепты, приготовить, испечь, ингредиенты",
        "retsepti",
    ),
    Concept.of(
        "eating_out",
        "restaurant, restaurants, cafe, bar, pub, dinner place, pizza place",
        "restoran, restorani, kohvik, kohvikut, baar, pubi, söögikoht",
        "ресторан, ресторана, кафе, бар, паб",
    ),
    # A score is "счёт матча": a bare "счёт" is mostly a bill or an account ("сравнить со
    # счётом" for electricity), which is no sport.
    Concept.of(
        "sports",
        "football, soccer, basketball, hockey, tournament, who won",
        "jalka, jalgpall, jalgpalli, korvpall, hoki, turniir, kes võitis",
        "футбол, матч, счет матча, счет игры, баскетбол, хоккей, турнир, кто выиграл",
    ),
    Concept.of("jokes", "joke, jokes, funny story", "nali, nalja, anekdoot", "анекдот, шутка, шутку"),
    Concept.of(
        "entertainment",
        "movie, movies, film, films, song, songs, series, tv show",
        "film, filmi, kino, laul, laulu, seriaal",
        "фильм, фильмы, кино, песня, песню, сериал",
    ),
    Concept.of(
        "gambling",
        "lottery, casino, betting, stock market, bitcoin, crypto",
        "loto, loterii, kasiino, panustada, aktsiad, bitcoin, krüpto",
        "лотерея, казино, ставки, акции, биткоин, крипта",
    ),
    # Taxes other than the ones a catalogue names ("income tax return", "tuludeklaratsioon"):
    # a vehicle-tax endpoint does not cover them because both say "tax".
    Concept.of(
        "other_taxes",
        "income tax, tax return, tax returns, tax declaration, income declaration, vat, value added tax",
        "tulumaks, tulumaksu, tuludeklaratsioon, tuludeklaratsiooni, maksudeklaratsioon, käibemaks",
        "käibemaksu, maksutagastus",
        "подоходный налог, подоходного налога, налоговая декларация, налоговую декларацию",
        "декларация о доходах, декларацию о доходах, ндс, возврат налога",
    ),
    # A timetable: named alone ("bus timetable"), or a vehicle with the time it leaves
    # (`_TIMETABLE_PAIRS`). A vehicle alone ("taking the train to Riga, do I need a
    # passport?") is a trip, whatever it is asked about.
    Concept.of(
        "timetable",
        "timetable, timetables, bus schedule, train schedule",
        "sõiduplaan, sõiduplaani, bussigraafik, rongigraafik",
        "расписание автобусов, расписание поездов, расписание электричек",
    ),
    # Doing a language or a writing task for the citizen: no public service answers it
    # ("translate into English: I need a new passport", "write me a poem about jaanipäev").
    Concept.of(
        "translation",
        "translate, translate into, translate to",
        "tõlgi, tõlkida, tõlkima, tõlkige",
        "переведи, перевести, переведите, переводить",
    ),
    Concept.of(
        "creative_writing",
        "poem, poems, poetry, rhyme, rhymes, song lyrics, essay",
        "luuletus, luuletust, luuletuse, luuletada, salm, salmi, essee",
        "стих, стихи, стишок, стихотворение, поэма, сочинение",
    ),
    Concept.of(
        "recommend",
        "recommend, suggest, best place, good place",
        "soovita, soovitage, soovitada, hea koht",
        "посоветуй, посоветуйте, порекомендуй, подскажи хороший",
    ),
]
# A topic found refuses the question: only from words as written (inflected, compound),
# never by a typo, which turns names into topics ("peetri plats 5" was "poetry").
TOPICS = Lexicon(TOPIC_CONCEPTS, typos=False)
# A vehicle of public transport and the time it leaves: together they ask a timetable.
TRANSPORT = Lexicon(
    [
        Concept.of(
            "vehicle",
            "bus, buses, coach, train, trains, tram, trams, trolleybus, ferry, ferries",
            "buss, bussi, busse, rong, rongi, ronge, tramm, trammi, trollibuss, praam, praami",
            "автобус, автобуса, автобусы, поезд, поезда, трамвай, троллейбус",
            "паром, парома, avtobus, poezd",
        ),
        Concept.of(
            "departure",
            "what time, when does, when do, when is the next, leave, leaves, depart, departs, departure",
            "next one, last one, how often",
            "mis kell, mis kellast, millal läheb, millal väljub, väljub, läheb, järgmine, viimane",
            "kui tihti",
            "во сколько, во скоко, когда отходит, когда идет, когда едет, отправляется, отходит",
            "следующий, последний, как часто",
        ),
    ]
)
_TIMETABLE_PAIRS = ("vehicle", "departure")

# The state of one application or document of the citizen's own: what a status service
# answers, not what a page on the procedure says. The aspects a page answers (how long,
# how much, lost, documents) still go to the knowledge base.
STATUS = Lexicon(
    [
        Concept.of(
            "status",
            "status, ready, done, finished, processed, processing, pick it up, collect it",
            "olek, olekut, olekus, seis, seisu, seisus, staatus, staatust, valmis, menetluses",
            "статус, состояние, готов, готова, готово, готовы, обработке",
        ),
    ]
)
# A number given for something ("number 12", "nr 12-34", "номер заявления 12", "#12"): the
# citizen means a record of theirs, even in a form no identifier has.
_NUMBER_GIVEN = re.compile(
    r"(?:#|№|\bnr\b\.?|\bnumbe?r\b|\bномер\w*(?:\s+[^\W\d_]+)?)\s*(?:(?:is|on|:)\s*)?\d", re.I
)
# Aspects of a procedure that outweigh a status word ("how long until it is ready").
_ASPECTS_OVER_STATUS = frozenset({"lost", "fee", "documents_needed", "validity", "deadline", "eligibility"})
# The aspects of rag_aspects that ask about the procedure, not about one application.
_PROCEDURE_ASPECTS = frozenset(
    {
        Aspect.TIME,
        Aspect.COST,
        Aspect.DOCUMENTS,
        Aspect.VALIDITY,
        Aspect.LOST,
        Aspect.ONLINE,
        Aspect.ELIGIBILITY,
        Aspect.WHY,
    }
)
# "recommend" alone is not a topic: "recommend a restaurant" is; "recommend how to renew" is not.
_TOPIC_NAMES = TOPICS.names - {"recommend"}
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


# The English verb beside the Estonian "pass" (passport): "which laws passed" names no document.
_PASS_VERB = re.compile(r"(?<!\w)pass(?:ed|es|ing)(?!\w)", re.IGNORECASE)


def knowledge_class(message: str) -> str | None:
    """The knowledge class of a question about a procedure, or None."""
    found = KNOWLEDGE.find(message)
    for name in ("lost", "fee", "documents_needed", "validity", "deadline", "eligibility", "procedure"):
        if name in found:
            return name
    if "document" in _DOCUMENTS.find(_PASS_VERB.sub(" ", message)):
        if set(aspects_of(message)[0]) & _PROCEDURE_ASPECTS:
            return "document_aspect"
        if "enough" in found or asks_necessity(message):
            return "document_needed"
    return None


# A day off in place of one that falls on a weekend ("christmas is on a saturday, do we
# get the monday off instead?", "kas saame esmaspäeva asemele vabaks", "перенесут ли
# выходной на понедельник"): a rule's question about a case, as a condition is.
_SUBSTITUTE = Lexicon(
    [
        Concept.of(
            "substitute",
            "instead, in its place, in lieu, substitute day, replacement day, carried over, moved to"
            ", compensated, make up for",
            "asemel, asemele, asenduspäev, asenduseks, kompenseeritakse, üle kantud, edasi lükatud",
            "tõstetakse, nihkub",
            "вместо, взамен, перенос, переносится, перенесут, переносят, перенесли, компенсируют",
        ),
        Concept.of(
            "weekend_day",
            "saturday, sunday, weekend",
            "laupäev, laupäeval, pühapäev, pühapäeval, nädalavahetus, nädalavahetusel",
            "суббота, субботу, воскресенье, выходные, выходных, выходной",
        ),
    ],
    typos=False,
)


def asks_substitute_day(message: str) -> bool:
    """The message asks whether a day off that falls on a weekend is moved to another."""
    return _SUBSTITUTE.find(message).all("substitute", "weekend_day")


def names_document(message: str) -> bool:
    """The message names a document a citizen holds (a passport, an ID card, a driving
    licence, a residence permit)."""
    return "document" in _DOCUMENTS.find(_PASS_VERB.sub(" ", message))


def status_question(message: str) -> bool:
    """A question about the state of the citizen's own application ("is my passport ready
    yet", "tahaks passi taotluse seisu teada", "готов ли мой паспорт") that asks no aspect
    of the procedure: a status service's, which asks for the number when none is given."""
    number = _NUMBER_GIVEN.search(message)
    if "status" not in STATUS.find(message) and not number:
        return False
    if set(KNOWLEDGE.find(message).positions) & _ASPECTS_OVER_STATUS:
        return False
    # With no number, a question asking an aspect of the procedure ("after applying, when
    # will it be ready", "kaua id kaardi valmimine aega võtab", "what do I bring when I go
    # to pick it up") is the page's, whatever state word it has.
    return bool(number) or not (set(aspects_of(message)[0]) & _PROCEDURE_ASPECTS)


def has_identifier(message: str) -> bool:
    """A value shaped like an identifier: letters and digits together ("A1234567",
    "123ABC") or five digits or more. A year ("2026") is not one."""
    return any(_identifier_like(t) for t in _TOKEN.findall(message))


def covered_topics(catalogue_texts: Iterable[str]) -> frozenset[str]:
    """The out-of-scope topics the catalogue itself names (then they are in scope)."""
    covered: set[str] = set()
    for text in catalogue_texts:
        covered |= set(TOPICS.find(text).positions) & _TOPIC_NAMES
        if "vehicle" in TRANSPORT.find(text):
            covered.add("timetable")
    return frozenset(covered)


# Words that are first of all function words and only rarely a topic's case form: the
# Estonian "ilma" is the preposition "without" ("ilma omanikuta", "jäin tööst ilma") far
# more often than the genitive of "ilm" (weather), which has its nominative and
# compounds ("milline ilm", "ilmateade") to be recognised by.
_FUNCTION_HOMOGRAPHS = re.compile(r"(?<!\w)ilma(?!\w)", re.IGNORECASE)


def uncovered_topic(message: str, covered: frozenset[str]) -> str | None:
    """An out-of-scope topic the message is about and the catalogue does not cover."""
    found = TOPICS.find(_FUNCTION_HOMOGRAPHS.sub(" ", message))
    topics = set(found.positions) & _TOPIC_NAMES
    if TRANSPORT.find(message).all(*_TIMETABLE_PAIRS):
        topics.add("timetable")
    topics -= covered
    return min(topics) if topics else None


_EXAMPLE = re.compile(
    r"\(\s*e\.?\s*g\.?,?\s*([^)]+)\)|\beg\.?\s+(\S+)|\bnäiteks\s+(\S+)|\bнапример\s+(\S+)", re.I
)


def shape(token: str) -> str:
    """A value's shape: a run of letters → "A", a run of digits → "9" ("A1234567" → "A9",
    "123ABC" → "9A"). Runs are not kept by length: an example shows the kind of value, not
    its only length ("P22334455", "K55555" and a mistyped "A123" are application numbers
    like "A1234567", which the service then accepts or explains). Cyrillic look-alike
    letters count as letters."""
    classes = ("9" if c.isdigit() else "A" if c.isalpha() else c for c in token.upper())
    return re.sub(r"(A)A+|(9)9+", r"\1\2", "".join(classes))


def _example_values(descriptions: Iterable[str]) -> list[str]:
    found: list[str] = []
    for description in descriptions:
        for match in _EXAMPLE.finditer(description):
            text = next(g for g in match.groups() if g)
            found.extend(token for token in _TOKEN.findall(text) if _identifier_like(token))
    return found


def example_shapes(descriptions: Iterable[str]) -> set[str]:
    """The shapes of the identifiers a parameter's description gives as its example
    ("The application number … (e.g. A1234567)"): letters and digits together, or five
    digits or more."""
    return {shape(token) for token in _example_values(descriptions)}


def exact_shape(token: str) -> str:
    """A value's shape with its runs' lengths ("123ABC" → "999AAA")."""
    return "".join("9" if c.isdigit() else "A" for c in token.upper() if c.isalnum())


def example_exact_shapes(descriptions: Iterable[str]) -> set[str]:
    """The examples' shapes with their runs' lengths: what a value written in two words
    must have exactly to be read as one of them."""
    return {exact_shape(token) for token in _example_values(descriptions)}


# Digits then letters written apart ("555 klm", "888 EVA"): one value typed with a space,
# when the two words together have exactly the shape of an example. Latin letters only
# (Cyrillic words beside a number are words: "за 555 дней"); currency codes and units
# make an amount ("500 eur", "300 kwh").
_DIGITS_THEN_LETTERS = re.compile(r"(?<![^\W_])(\d{2,12}) ([A-Za-z]{1,12})(?![^\W_])")
_LETTERS_THEN_DIGITS = re.compile(r"(?<![^\W_])([A-Za-z]{1,3}) (\d{2,12})(?![^\W_])")
_UNITS = frozenset("euro kwh mwh gwh kw mw km kg cm mm min sec pcs tk".split())


@functools.cache
def _amount_units() -> frozenset[str]:
    """Units and ISO 4217 currency codes (pycountry), lower-cased."""
    import pycountry

    return _UNITS | frozenset(c.alpha_3.lower() for c in pycountry.currencies)


def spaced_values(message: str) -> list[str]:
    """Digits and letters written as two words that may be one value ("555 klm" → "555KLM")."""
    # Each order on its own: in "ABC 123 pls" both "ABC 123" and "123 pls" are read.
    found = [
        f"{m.group(1)}{m.group(2).upper()}"
        for m in _DIGITS_THEN_LETTERS.finditer(message)
        if m.group(2).lower() not in _amount_units()
    ]
    found += [
        f"{m.group(1).upper()}{m.group(2)}"
        for m in _LETTERS_THEN_DIGITS.finditer(message)
        if m.group(1).lower() not in _amount_units()
    ]
    return found


# Street-type words as people write them (et/en/ru): a street name, its type and a house
# number ("linnu tee 1", "Ranna pst 1", "Akadeemia tee 3", "Baker street 221b") are an
# address whatever the sentence around them asks.
_STREET_TYPES = frozenset(
    """
    tn tänav tanav mnt maantee tee pst puiestee plats väljak valjak põik poik allee
    street st str road rd avenue ave boulevard lane square
    ул улица пр проспект бульвар шоссе переулок пер площадь мнт тн пст теэ
    """.split()
)
_HOUSE_NUMBER = re.compile(r"\d{1,4}[^\W\d_]?")
_WORDS_AROUND = re.compile(r"[^\W_]+\.?", re.UNICODE)


def has_address(message: str) -> bool:
    """A street name, a street-type word and a house number together ("Ranna pst 1",
    "ул. Виру 4" as "ул Виру 4" too)."""
    words = [w.rstrip(".").lower() for w in _WORDS_AROUND.findall(message)]
    for i, word in enumerate(words):
        if word not in _STREET_TYPES:
            continue
        before = words[i - 1] if i > 0 else ""
        after = words[i + 1] if i + 1 < len(words) else ""
        after_next = words[i + 2] if i + 2 < len(words) else ""
        if before.isalpha() and before not in _STREET_TYPES and _HOUSE_NUMBER.fullmatch(after):
            return True  # "Ranna pst 1"
        if after.isalpha() and after not in _STREET_TYPES and _HOUSE_NUMBER.fullmatch(after_next):
            return True  # "ул Виру 4"
    return False


def example_is_address(descriptions: Iterable[str]) -> bool:
    """A parameter whose example is an address ("(e.g., Viru tn 4, Tallinn)")."""
    for description in descriptions:
        for match in _EXAMPLE.finditer(description):
            if has_address(next(g for g in match.groups() if g)):
                return True
    return False


def spaced_shapes(message: str) -> set[str]:
    """The exact shapes of the message's values written in two words."""
    return {exact_shape(value) for value in spaced_values(message)}


def _identifier_like(token: str) -> bool:
    # Counted in C: a 10,000-character message has thousands of tokens.
    digits = sum(map(str.isdigit, token))
    letters = sum(map(str.isalpha, token))
    return (digits >= 3 and letters >= 1) or digits >= 5


def identifiers(message: str) -> list[str]:
    """The identifier-like values of a message, in order ("123ABC", "PA1234567")."""
    return [t for t in _TOKEN.findall(message) if _identifier_like(t)]


def identifier_shapes(message: str) -> set[str]:
    """The shapes of the identifier-like values in a message."""
    return {shape(t) for t in _TOKEN.findall(message) if _identifier_like(t)}
