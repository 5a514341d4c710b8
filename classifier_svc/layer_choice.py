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

import re
from collections.abc import Iterable

from classifier_svc.lexicon import Concept, Lexicon
from classifier_svc.rag_aspects import Aspect, aspects_of

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
            "who can get, am i eligible, entitled, eligibility, who is entitled",
            "kellel on õigus, kas mul on õigus, õigus saada",
            "кто имеет право, имею ли я право, право на получение",
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


def knowledge_class(message: str) -> str | None:
    """The knowledge class of a question about a procedure, or None."""
    found = KNOWLEDGE.find(message)
    for name in ("lost", "fee", "documents_needed", "validity", "deadline", "eligibility", "procedure"):
        if name in found:
            return name
    return None


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


def example_shapes(descriptions: Iterable[str]) -> set[str]:
    """The shapes of the identifiers a parameter's description gives as its example
    ("The application number … (e.g. A1234567)"): letters and digits together, or five
    digits or more."""
    shapes = set()
    for description in descriptions:
        for match in _EXAMPLE.finditer(description):
            text = next(g for g in match.groups() if g)
            for token in _TOKEN.findall(text):
                if _identifier_like(token):
                    shapes.add(shape(token))
    return shapes


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
