"""What a knowledge question asks about, and which sentences of a page say it.

A citizen's question about a public service asks for one or more *aspects* of its topic:
how long it takes, how much it costs, which documents are needed, how or where to
apply, whether it can be done online, who can, what to do when the thing is lost, how
long it stays valid, when to act, where to collect it, what happens next, what it is.

Each aspect has cue words in questions and evidence in sentences, in en/et/ru, compared
in folded form (lower case, no diacritics: "paev" meets "päev", "ё" meets "е") and by
word beginnings, so case forms and compound words meet ("kehtib"/"kehtivus",
"пошлину"/"госпошлина"). Some evidence is a shape rather than a word: a time aspect is
answered by a duration ("within 30 days", "ühe kuu jooksul", "в течение десяти рабочих
дней"), a cost fully only by an amount of money, an online question by an online
channel (a self-service portal, an e-service, a web address).

Nothing here knows a particular knowledge base: the cues are the ordinary ways of
asking and of stating these aspects in the three languages.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum


def fold(text: str) -> str:
    """Lower case without diacritics, one space between words: how cues are compared."""
    decomposed = unicodedata.normalize("NFKD", text.lower().replace("ё", "е"))
    if not decomposed.isascii():  # nothing to strip in ASCII (most text: no work per character)
        decomposed = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", decomposed).strip()


class Aspect(StrEnum):
    TIME = "time"  # how long it takes, how soon, by when
    VALIDITY = "validity"  # how long it is valid, when it expires
    COST = "cost"  # fee, price, amount
    DOCUMENTS = "documents"  # what is needed, documents, certificates, photo
    HOW = "how"  # how or where to apply
    ONLINE = "online"  # whether it can be done online
    ELIGIBILITY = "eligibility"  # who can or needs to
    LOST = "lost"  # lost, stolen or damaged
    COLLECT = "collect"  # where and how to pick it up
    AFTER = "after"  # what happens next
    WHEN = "when"  # when to do it
    WHY = "why"  # why do it, what it gives
    DEFINITION = "definition"  # what it is


def _pattern(*phrases: str) -> re.Pattern[str]:
    """Phrases of folded words: `word*` is a word beginning, `~` up to three other words
    between; everything else is a whole word."""
    alternatives = []
    for phrase in phrases:
        parts = []
        for token in fold(phrase).split():
            if token == "~":
                parts.append(r"(?:\w+\W+){0,3}?")
                continue
            word = re.escape(token.rstrip("*"))
            parts.append(word + (r"\w*" if token.endswith("*") else r"(?!\w)") + r"\W*")
        alternatives.append("".join(parts))
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + ")")


# --- question cues --------------------------------------------------------------------
# The most specific aspects are tried first; a word that made one aspect (the "how" of
# "how long") does not make another.

_TIME_UNITS = (
    "day* week* month* year* hour* minute* "
    "paev* paeva* nadal* kuu kuud kuus kuuga kuul aasta* tund* tunni* tooraev* toopaev* "
    "дн* день недел* месяц* год* лет час* сут*"
)
_UNIT_WORDS = _TIME_UNITS.split()

_QUESTION_CUES: list[tuple[Aspect, re.Pattern[str]]] = [
    # An amount of time before any other "how much".
    (Aspect.TIME, _pattern("how much time", "kui palju aega", "сколько времени")),
    *{
        Aspect.VALIDITY: _pattern(
            "valid*",
            "expir*",
            "how long ~ last*",
            "how long ~ good for",
            # "How many years is a licence good for": what it is good for is its validity.
            "good for",
            "kehti*",
            "aegu*",
            "действ*",
            "срок действ*",
            "истека*",
            "истеч*",
            # For how long it is issued: "на сколько лет выдают", "mitmeks aastaks".
            "for how many year*",
            "mitmeks aastaks",
            "kui pikaks ajaks",
            "на сколько лет",
            "на сколько год*",
            "на какой срок",
        ),
        Aspect.COST: _pattern(
            "how much ~ cost*",
            "how much ~ pay*",
            "how much is",
            "how much are",
            "how much will",
            "how much does",
            "how much do",
            "how much money",
            "how much exactly",
            "how much",
            "cost*",
            "price*",
            "fee",
            "fees",
            "charge*",
            "paid",
            "eur",
            "euro",
            "euros",
            "amount*",
            "kui palju maks*",
            "palju maks*",
            "kui palju",
            "maksab",
            "maksavad",
            "maksma",
            "maksumus*",
            "hind",
            "hinda",
            "hinna*",
            "tasu",
            "tasuline",
            "loiv*",
            "riigiloiv*",
            "eurot",
            "eurodes",
            "summa*",
            "kui suur*",
            "palju raha",
            "сколько стоит",
            "стоит",
            "стоим*",
            "цен*",
            "пошлин*",
            "госпошлин*",
            "плат*",
            "евро",
            "сумм*",
            "размер*",
            "сколько денег",
            "сколько получ*",
            # How the amount is computed asks for the amount (or its basis).
            "calculat*",
            "how big",
            "suurus*",
            "arvuta*",
            "рассчит*",
            "вычисля*",
        ),
        Aspect.TIME: _pattern(
            "how long",
            "how soon",
            "how quickly",
            "how fast",
            "how much time",
            "how many " + "day*",
            "how many week*",
            "how many month*",
            "how many year*",
            "how many hour*",
            "deadline*",
            "by when",
            "time limit",
            "waiting time",
            "wait*",
            "processing time",
            "take* long",
            "when ~ ready",
            "when will ~ get",
            "within what",
            "kui kaua",
            "kaua",
            "kui kiiresti",
            "kiiresti",
            "kui pikk*",
            "mitu paeva*",
            "mitu nadalat",
            "mitu kuud",
            "mitu aastat",
            "mitu tundi",
            "aega votab",
            "aega vota*",
            "tahtaeg*",
            "mis ajaga",
            "mis ajaks",
            "millal ~ valmis",
            "millal ~ katte",
            "oota*",
            "сколько времени",
            # "How much … time", "how much will it take": "сколько это займет по времени".
            "сколько ~ времени",
            "сколько ~ займ*",
            "сколько ~ занима*",
            "how much ~ time",
            "сколько дней",
            "сколько недель",
            "сколько месяц*",
            "сколько лет",
            "сколько ждать",
            "сколько ~ дела*",
            "сколько ~ оформля*",
            "сколько ~ изготавлива*",
            "как долго",
            "как быстро",
            "как скоро",
            "когда ~ готов*",
            "в какой срок",
            "за какой срок",
            "какой срок",
            "срок*",
            "ждать",
            "жду",
            # Asking for it sooner asks how long it takes (the answer: the processing time
            # and its urgent option): "can it be done faster?", "kas saab kiiremini?".
            "faster",
            "quicker",
            "sooner",
            "urgent*",
            "expedit*",
            "rush*",
            "kiiremini",
            "kiiremalt",
            "kiirem",
            "kiirmenetlus*",
            "kiirkorras",
            "быстрее",
            "побыстрее",
            "скорее",
            "срочн*",
            "ускор*",
            # "Within which time": Estonian "aeg" compounds take the stem "aja" in case
            # forms (tähtaeg → tähtaja, menetlusaeg → menetlusaja); "mis … jooksul".
            "tahtaja*",
            "mis ~ jooksul",
            "mitme ~ jooksul",
            "kui pika ~ jooksul",
            "в течение какого",
        ),
        Aspect.LOST: _pattern(
            "lost",
            "lose",
            "losing",
            "stolen",
            "stole",
            "damaged",
            "broken",
            "missing",
            "kadu*",
            "kaota*",
            "kaotsi",
            "varast*",
            "rikutud",
            "rikki",
            "katki",
            "потер*",
            "утер*",
            "утрат*",
            "украл*",
            "украд*",
            "сломал*",
            "повреж*",
            "пропал*",
        ),
        Aspect.ONLINE: _pattern(
            "online",
            "on line",
            "internet*",
            "web*",
            "e service*",
            "self service*",
            "from home",
            "remote*",
            "digital*",
            "in person",
            "go to ~ office",
            "visit ~ office",
            "netis",
            "neti kaudu",
            "internetis",
            "veebis",
            "online",
            "e teenin*",
            "iseteenin*",
            "kodust",
            "kohapeal",
            "kohale",
            "arvutis",
            "онлайн",
            "интернет*",
            "через сайт",
            "на сайте",
            "удален*",
            "не приходя",
            "лично",
            "дистанц*",
            "электронн*",
        ),
        Aspect.DOCUMENTS: _pattern(
            "what ~ need*",
            "which ~ need*",
            "document*",
            "paper*",
            "bring",
            "requir*",
            "certificate*",
            "photo*",
            "mida ~ vaja",
            "mis ~ vaja",
            "mida ~ vajan",
            "dokument*",
            "paber*",
            "kaasa",
            "toend*",
            "foto*",
            "noutav*",
            # The details an application asks for: "what info do I give", "mis andmed",
            # "что указывать в заявлении".
            "info",
            "information",
            "details",
            "andme*",
            "данн*",
            "указыва*",
            "указать",
            "какие документы",
            "что ~ нужно",
            "что ~ нужен",
            "что ~ надо",
            "документ*",
            "справк*",
            "бумаг*",
            "фото*",
            "взять с собой",
        ),
        Aspect.COLLECT: _pattern(
            "pick ~ up",
            "pick up",
            "collect*",
            "where ~ get it",
            "deliver*",
            "by post",
            "receive it",
            "katte",
            "vastu votta",
            "postiga",
            "забрать",
            "забирать",
            "забира*",
            "где ~ получ*",
            "доставк*",
            "по почте",
        ),
        Aspect.AFTER: _pattern(
            "after*",
            "what happens next",
            "next step*",
            "then what",
            "automatic*",
            "separately",
            "parast",
            "parast seda",
            "edasi",
            "automaat*",
            "eraldi",
            "после",
            "дальше",
            "автоматич*",
            "отдельно",
        ),
        Aspect.ELIGIBILITY: _pattern(
            "who can",
            "who may",
            "who is",
            "who needs",
            "who need",
            "eligib*",
            "entitled",
            "am i able",
            "conditions",
            "qualify*",
            "kes saab",
            "kes voib",
            "kellele",
            "tingimus*",
            "oigus*",
            "кто может",
            "кто имеет",
            "кому",
            "имею ли",
            "услови*",
            "право",
        ),
        # Why do it, and what it gives: "what's the point of registering", "mis kasu on",
        # "зачем регистрироваться", "what do I get from registering".
        Aspect.WHY: _pattern(
            "why",
            "what for",
            "point of",
            "the point",
            "bother",
            "what do i ~ get",
            "what will i ~ get",
            "what does it give",
            "what good",
            "benefit* of",
            "miks",
            "milleks",
            "mis kasu",
            "mis mote*",
            "mida ~ annab",
            "mida ma ~ saan",
            "mis ma ~ saan",
            "зачем",
            "почему",
            "для чего",
            "какой смысл",
            "смысл",
            "что ~ дает",
            "что ~ даст",
            "что я ~ получу",
            "какая польза",
        ),
        Aspect.WHEN: _pattern(
            "when should",
            "when do i",
            "when must",
            "when to",
            "when can",
            "millal",
            "когда",
        ),
        Aspect.DEFINITION: _pattern(
            "what is",
            "what are",
            "what does ~ mean",
            "meaning",
            "mis on",
            "mida tahendab",
            "что такое",
            "что это",
        ),
        Aspect.HOW: _pattern(
            "how do",
            "how can",
            "how to",
            "how should",
            "how does",
            "where do",
            "where can",
            "where to",
            "where should",
            "where",
            "what should i do",
            "what do i do",
            "what to do",
            "procedure",
            "kuidas",
            "kus",
            "kust",
            "kuhu",
            "mida teha",
            "mis teha",
            "mida ma tegema",
            "mis ma tegema",
            "mida nuud",
            "mis nuud",
            "как",
            "где",
            "куда",
            "что делать",
            "что теперь делать",
            "что мне делать",
        ),
    }.items(),
]

# Words that open a yes/no question (en auxiliaries first in a clause, et "kas", ru "ли").
_YES_NO_OPENING = re.compile(
    r"^(?:can|could|do|does|did|is|are|was|were|will|would|should|must|may|have|has|am|shall"
    r"|kas|kass|kaa)\b"
)
_YES_NO_INSIDE = re.compile(
    r"(?<!\w)(?:(?:can|could|do|does|did|is|are|should|must|will|may|shall)\s+(?:i|we|you|it|they|he|she|my|the|a|an)"
    r"|kas|можно|нужно|надо|нужен|нужна|нужны|обязательно|могу|можем|смогу|сможем)(?!\w)"
)
_RUSSIAN_LI = re.compile(r"(?<!\w)ли(?!\w)")
_RU_YES_NO_OPENING = re.compile(
    # The modal "can" opening a clause asks yes or no as "can I" does ("могу я ещё подписывать…?").
    r"^(?:можно|нужно|нужен|нужна|нужны|надо|обязательно|правда|могу|можем|может|могут|смогу|сможем)\b"
)
_WH_WORDS = re.compile(
    r"(?<!\w)(?:"
    + "|".join(
        fold(w)
        for w in (
            "how what which when where who whom why whats hows wheres whos whens whys "
            "kuidas mis mida millal kus kust kuhu kes miks mitu "
            "milline millised milliseid millist millise palju kui "
            "что как где когда сколько скока какой какая какие каких кто "
            "почему зачем куда откуда чей"
        ).split()
    )
    + r")(?!\w)"
)


def is_question_word(word: str) -> bool:
    """A question word of en/et/ru ("how", "kui", "сколько")."""
    return bool(_WH_WORDS.fullmatch(fold(word)))


# A clause boundary inside one question: "…and how much…", "… и можно ли…".
_CONJUNCTION = re.compile(r"\s*(?:,\s*)?(?<!\w)(?:and|also|plus|ja|ning|ka|и|а также|а)\s+(?=\w)")
# A subordinate clause of condition or time opening a piece ("if …", "kui …", "если …").
_CONDITION_OPENING = re.compile(r"^(?:(?:and|but|ja|aga|и|а|но)\s+)?(if|when|unless|kui|если|когда)(?!\w)")
# Where a question may begin inside a sentence: at a conjunction or a comma ("my card
# expires next month, how do I renew it?").
_CLAUSE_BREAK = re.compile(_CONJUNCTION.pattern + r"|\s*,\s*(?=\w)")
_SENTENCE_BREAK = re.compile(r"(?<=[?!.;])\s+|\n+")


@dataclass(frozen=True)
class QuestionPart:
    """One clause of a question with what it asks."""

    text: str
    aspects: tuple[Aspect, ...]
    yes_no: bool
    # The folded cue words found (so the lexical score can leave them out).
    cue_words: frozenset[str] = frozenset()


# Chat spellings of Russian "сколько" ("скока", "скоко", "сколко"): the question word of
# "how long" / "how much" as people type it.
_COLLOQUIAL_SKOLKO = re.compile(r"(?<!\w)ско(?:л|ль)?к[аоу](?!\w)")


_JOB_LOSS = _pattern(
    "lost ~ job*",
    "lost ~ work",
    "lose ~ job*",
    "losing ~ job*",
    "kaota* ~ too*",
    "kaota* ~ tookoha*",
    "потер* ~ работ*",
    "лишил* ~ работ*",
)


_SKOLKO_NEXT = re.compile(r"(?<!\w)сколько\s+(\w+)")


def _asks_how_long_by_verb(folded: str) -> bool:
    """ "Сколько" followed by a verb ("сколько рассматривают", "сколько ждать"), by
    pymorphy3's reading of the word: the question asks a duration."""
    match = _SKOLKO_NEXT.search(folded)
    if match is None:
        return False
    from services.language import russian_analyzer

    parses = russian_analyzer().parse(match.group(1))
    return bool(parses) and bool({"VERB", "INFN"} & set(parses[0].tag.grammemes))


def aspects_of(text: str) -> tuple[tuple[Aspect, ...], frozenset[str]]:
    """The aspects a question (or clause) asks for, most specific first, and the folded
    words that made them."""
    folded = _COLLOQUIAL_SKOLKO.sub("сколько", fold(text))
    taken: list[tuple[int, int]] = []
    found: list[Aspect] = []
    cue_words: set[str] = set()
    for aspect, pattern in _QUESTION_CUES:
        for match in pattern.finditer(folded):
            span = (match.start(), match.end())
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            taken.append(span)
            cue_words.update(re.findall(r"\w+", match.group()))
            if aspect not in found:
                found.append(aspect)
    # "Сколько рассматривают / ждут / делают …": "how much" before a verb asks how long.
    if not any(a in found for a in (Aspect.TIME, Aspect.VALIDITY, Aspect.COST)) and _asks_how_long_by_verb(
        folded
    ):
        found.insert(0, Aspect.TIME)
        cue_words.add("сколько")
    # "How long is it valid" asks for validity, not a processing time.
    if Aspect.VALIDITY in found and Aspect.TIME in found:
        found.remove(Aspect.TIME)
    # "How"/"where" alone asks how to do it; beside a more specific aspect it is only the
    # question word ("where do I pick it up"), except for a lost document, whose answer
    # is how to apply for a new one.
    if Aspect.DEFINITION in found and len(found) > 1:  # "what is the fee" asks the fee
        found.remove(Aspect.DEFINITION)
    if Aspect.HOW in found and len(found) > 1:
        found.remove(Aspect.HOW)
    # Losing one's job is the situation of being unemployed, not a lost document.
    if Aspect.LOST in found and _JOB_LOSS.search(folded):
        found.remove(Aspect.LOST)
        if not found:
            found.append(Aspect.HOW)
    # What to do about a lost document is how to apply for a new one ("lost my licence,
    # what now??"), asked with a "how" or not.
    if Aspect.LOST in found:
        found.append(Aspect.HOW)
    return tuple(found), frozenset(cue_words)


def is_yes_no(text: str, aspects: tuple[Aspect, ...] = ()) -> bool:
    """A question answered by yes or no: an auxiliary or "kas" opening a clause, the
    Russian particle "ли", or a question mark without any question word or asked aspect
    ("перед сочельником рабочий день короче?", not "deadline to register a birth?")."""
    folded = fold(text)
    for clause in re.split(r"[,;:?!.]\s*|\s+(?:or|voi|или)\s+", folded):
        clause = clause.strip()
        if _YES_NO_OPENING.match(clause) or _RU_YES_NO_OPENING.match(clause):
            return True
        # "after we register the birth do we have to apply…?", "после регистрации нужно ли…";
        # a leading "if" is no question word ("kui riigipüha on laupäeval, kas …").
        if _YES_NO_INSIDE.search(clause) and not _WH_WORDS.search(
            _CONDITION_OPENING.sub("", clause, count=1)
        ):
            return True
    if _RUSSIAN_LI.search(folded):
        return True
    # A question mark with no question word asks yes or no ("ja lapsetoetust pean eraldi
    # taotlema?", "saab seda netis teha?"), unless what it names is what is asked (a
    # deadline, a fee, the documents: "deadline to register a birth?").
    return (
        text.rstrip().endswith("?") and not (set(aspects) & _ASKED_BY_NAMING) and not _WH_WORDS.search(folded)
    )


# Aspects a question asks by naming them ("the fee?", "tähtaeg?", "документы?").
_ASKED_BY_NAMING = frozenset(
    {Aspect.TIME, Aspect.COST, Aspect.DOCUMENTS, Aspect.VALIDITY, Aspect.DEFINITION, Aspect.WHEN, Aspect.HOW}
)


MAX_QUESTION_PARTS = 4
# Only the beginning of a message is split into its questions (about what the embedding
# reads of it): a pasted wall of text is not analysed clause by clause to its end.
MAX_SPLIT_CHARS = 1_000
# `_opens_a_question` reads the first words after a conjunction only.
_OPENING_CHARS = 80


def split_question(question: str) -> list[QuestionPart]:
    """The question's clauses that each ask something of their own ("how long does it
    take and how much does it cost" → two parts); a clause without an aspect or a
    question of its own stays with its neighbour."""
    question = question.strip()
    if len(question) > MAX_SPLIT_CHARS:
        # At the last sentence end within the limit (else a word's end): a clause cut in
        # two would be asked as a question of its own.
        head = question[:MAX_SPLIT_CHARS]
        cut = max(head.rfind(mark) for mark in ".?!\n") + 1 or head.rfind(" ")
        question = head[:cut] if cut > 0 else head
    pieces: list[str] = []
    for sentence in _SENTENCE_BREAK.split(question):
        if not sentence.strip():
            continue
        start = 0
        for match in _CLAUSE_BREAK.finditer(sentence):
            rest = fold(sentence[match.end() : match.end() + _OPENING_CHARS])
            if _opens_a_question(rest):
                pieces.append(sentence[start : match.start()])
                start = match.end()
        pieces.append(sentence[start:])
    parts: list[QuestionPart] = []
    context = ""  # statements before a question ("I need my first passport.") belong to it
    for piece in (p.strip(" ,;") for p in pieces):
        if not piece:
            continue
        aspects, cues = aspects_of(piece)
        asks = (
            is_yes_no(piece, aspects) or _opens_a_question(fold(piece)) or bool(_WH_WORDS.search(fold(piece)))
        )
        condition = _CONDITION_OPENING.match(fold(piece))
        if (
            condition
            and not piece.rstrip().endswith("?")
            and _only_a_condition(piece, condition, aspects, cues)
        ):
            # "If a holiday falls on a Sunday, is Monday off?", "and when my card expires,
            # can I still log in?": the condition is the situation, not a question.
            asks = False
        if not aspects and not asks:
            if parts and not piece.rstrip().endswith((".", "!")):
                parts.append(_part(f"{parts.pop().text} {piece}"))
            else:
                context = f"{context} {piece}".strip()
            continue
        if not asks and not piece.rstrip().endswith("?"):
            # A statement of the citizen's situation ("my ID card expires next month, how
            # do I renew it?"): it belongs to the question that follows, which says what
            # is asked.
            context = f"{context} {piece}".strip()
            continue
        parts.append(_part(f"{context} {piece}".strip(), asked=piece if context else None))
        context = ""
    if context:
        parts.append(_part(f"{parts.pop().text} {context}" if parts else context))
    # A clause said twice is answered once, and a message is answered in at most a few
    # parts: each part reads its page again, so a pasted wall of questions must not cost
    # a page read per clause (what citizens write has one to three).
    distinct = list({fold(part.text): part for part in parts}.values())
    return distinct[:MAX_QUESTION_PARTS] or [QuestionPart(question, (), False)]


def opens_with_condition(text: str) -> bool:
    """The message opens with a condition ("if a holiday falls on a Saturday, …", "kui …",
    "если …"): a question about what a rule makes of a case, not about a date. "When"
    asks a date instead where a verb follows it at once ("when is the Christmas break",
    "when's the next one", "kui kaua"), and "когда" where no second clause follows
    ("когда у школьников каникулы?")."""
    folded = fold(text)
    opening = _CONDITION_OPENING.match(folded)
    if opening is None:
        return False
    if opening.group(1) in ("when", "kui", "когда") and _ASKS_WHEN.match(folded, opening.end()):
        return False
    return not (opening.group(1) == "когда" and "," not in folded[opening.end() : opening.end() + 200])


# What follows "when"/"kui"/"когда" when it asks a question instead of opening a condition.
_ASKS_WHEN = re.compile(
    r"(?:'s|\s+(?:is|are|was|were|do|does|did|will|would|can|should|shall|has|have)\b"
    r"|\s+(?:kaua|palju|pikk|pikad|suur|tihti|kiiresti|vana|mitu)\b)"
)


def _only_a_condition(
    piece: str, opening: re.Match[str], aspects: tuple[Aspect, ...], cues: frozenset[str]
) -> bool:
    """The opening word ("when", "kui", "когда") only subordinates its clause: it makes
    no aspect, or only "when to do it" ("когда карта истечёт, …")."""
    if opening.group(1) not in cues:
        return True
    if Aspect.WHEN not in aspects:  # "kui kaua …" asks how long
        return False
    rest, _ = aspects_of(fold(piece)[opening.end() :])
    return rest == tuple(a for a in aspects if a is not Aspect.WHEN)


def _part(text: str, asked: str | None = None) -> QuestionPart:
    """The part `text`; when it is a statement of the situation and the question `asked`,
    what is asked comes from the question, and of the situation only a lost document
    (then "how do I…" asks how to replace it)."""
    aspects, cues = aspects_of(text)
    if asked is not None:
        own, own_cues = aspects_of(asked)
        if own:
            situation = (Aspect.LOST,) if Aspect.LOST in aspects and Aspect.LOST not in own else ()
            aspects = tuple(dict.fromkeys((*situation, *own, *((Aspect.HOW,) if situation else ()))))
            cues = own_cues | (cues if situation else frozenset())
    return QuestionPart(text, aspects, is_yes_no(asked or text, aspects), cues)


def _opens_a_question(folded: str) -> bool:
    head = folded.split(" ", 1)[0] if folded else ""
    return bool(
        _YES_NO_OPENING.match(folded)
        or _RU_YES_NO_OPENING.match(folded)
        or (head and _WH_WORDS.match(head))
        or (len(folded.split()) > 1 and folded.split()[1] == "ли")
    )


# --- sentence evidence ----------------------------------------------------------------

_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty "
    "a an "
    "uks uhe kaks kahe kolm kolme neli nelja viis viie kuus kuue seitse seitsme kaheksa "
    "uheksa kumme kumne kaksteist kaheteistkumne kakskummend kahekumne kolmkummend kolmekumne "
    "один одного одной одну два двух две три трех четыре четырех пять пяти шесть шести семь "
    "семи восемь восьми девять девяти десять десяти двадцать двадцати тридцать тридцати"
).split()
_DURATION = re.compile(
    r"(?<!\w)(?:\d+(?:[.,]\d+)?|" + "|".join(fold(w) for w in _NUMBER_WORDS) + r")"
    r"(?:\s+|-)(?:(?:working|calendar|business|full|рабоч\w*|календарн\w*)\s+)?"
    r"(?:" + "|".join(u.rstrip("*") + (r"\w*" if u.endswith("*") else "") for u in _UNIT_WORDS) + r")(?!\w)"
)
_AMOUNT = re.compile(r"(?:€\s?\d|\d[\d\s.,]*\s?(?:€|eur(?:o\w*)?|евро|руб\w*)(?!\w))")
_WEB_ADDRESS = re.compile(r"(?<![\w@])[a-z0-9-]+\.(?:ee|eu|com|org|net|gov|info)(?!\w)")

_EVIDENCE: dict[Aspect, re.Pattern[str]] = {
    Aspect.VALIDITY: _pattern(
        "valid*",
        "validity",
        "expir*",
        "kehti*",
        "aegu*",
        "действ*",
        "срок действ*",
        "истечени*",
        "просроч*",
    ),
    Aspect.COST: _pattern(
        "fee*",
        "price*",
        "cost*",
        "pay",
        "paid",
        "payment*",
        "charge*",
        "rate",
        "rates",
        "amount*",
        "income",
        "salary",
        "eur",
        "euro",
        "euros",
        "loiv*",
        "riigiloiv*",
        "tasu",
        "tasud",
        "tasuda",
        "tasu*",
        "lisatasu*",
        "hind*",
        "hinna*",
        "maks*",
        "maar*",
        "alammaar*",
        "summa*",
        "suurus*",
        "tulu*",
        "palga*",
        "palk*",
        "eurot",
        "пошлин*",
        "госпошлин*",
        "плат*",
        "стоимост*",
        "цен*",
        "евро",
        "ставк*",
        "размер*",
        "доход*",
        "зарплат*",
        "выплач*",
    ),
    Aspect.DOCUMENTS: _pattern(
        "need*",
        "required",
        "requir*",
        "bring",
        "photo*",
        "certificate*",
        "document*",
        "attach*",
        "consent",
        "agreement",
        "paper*",
        "form",
        "details",
        "give",
        "andme*",
        "margi*",
        "vaja*",
        "vajalik*",
        "foto*",
        "fotot",
        "toend*",
        "dokument*",
        "lisa",
        "lisad",
        "lisada",
        "kaasa",
        "nousolek*",
        "leping*",
        "nouetele",
        "нужн*",
        "необходим*",
        "фото*",
        "справк*",
        "документ*",
        "прилож*",
        "прилага*",
        "возьмит*",
        "с собой",
        "данны*",
        "указ*",
        "соглас*",
        "договор*",
        "бумажн*",
    ),
    Aspect.HOW: _pattern(
        "portal*",
        "office*",
        "self service*",
        "e service*",
        "online",
        "apply",
        "register",
        "submit*",
        "renew",
        "by e mail",
        "iseteenin*",
        "teenindus*",
        "esindus*",
        "portaal*",
        "kaudu",
        "taotle*",
        "registreeri*",
        "esita*",
        "uuenda*",
        "e posti*",
        "самообслуживан*",
        "бюро",
        "портал*",
        "представительств*",
        "подай*",
        "подает*",
        "подать",
        "заявлени*",
        "ходатайств*",
        "зарегистр*",
        "замени*",
        "отправ*",
    ),
    Aspect.ONLINE: _pattern(
        "online",
        "self service*",
        "e service*",
        "portal*",
        "internet*",
        "website",
        "iseteenin*",
        "e teenin*",
        "e taotlus*",
        "portaal*",
        "riigiportaal*",
        "internet*",
        "veebi*",
        "самообслуживан*",
        "портал*",
        "онлайн",
        "э служб*",
        "э услуг*",
        "интернет*",
    ),
    Aspect.ELIGIBILITY: _pattern(
        "if you",
        "who",
        "eligib*",
        "entitled",
        "working age",
        "needed",
        "need",
        "can register",
        "kui sul",
        "kui sa",
        "kellele",
        "tooealine",
        "vajalik",
        "saab end",
        "если",
        "кому",
        "может",
        "можно",
        "нужен",
        "трудоспособн*",
    ),
    Aspect.LOST: _pattern(
        "lost",
        "stolen",
        "damaged",
        "loss",
        "kadunud",
        "varastatud",
        "rikutud",
        "kaotatud",
        "утерян*",
        "украден*",
        "поврежден*",
        "утрач*",
        "утер*",
    ),
    Aspect.COLLECT: _pattern(
        "collect*",
        "pick*",
        "ready",
        "notice",
        "by post",
        "deliver*",
        "receive",
        "katte",
        "valmi*",
        "teate",
        "postiga",
        "saad ~ katte",
        "получ*",
        "забира*",
        "готов*",
        "уведомлени*",
        "почт*",
    ),
    Aspect.AFTER: _pattern(
        "after",
        "then",
        "next",
        "automatic*",
        "afterwards",
        "starts",
        "once",
        "parast",
        "seejarel",
        "automaat*",
        "hakkab",
        "после",
        "затем",
        "автоматич*",
        "начина*",
    ),
    # What it gives or what it is for.
    Aspect.WHY: _pattern(
        "give*",
        "access",
        "so that",
        "in order",
        "entitle*",
        "tells",
        "annab",
        "kaasneb",
        "voimalda*",
        "oiguse",
        "дает",
        "дают",
        "доступ",
        "чтобы",
        "позволя*",
        "право на",
    ),
    Aspect.WHEN: _pattern(
        # At a moment relative to another step: after it, at the same time, within a period.
        "after",
        "same time",
        "together with",
        "within",
        "parast",
        "samal ajal",
        "koos",
        "jooksul",
        "после",
        "одновременно",
        "вместе с",
        "в течение",
        "before",
        "expire*",
        "when",
        "changed",
        "enne",
        "kui",
        "lopp*",
        "до",
        "истечени*",
        "если",
        "когда",
    ),
    Aspect.DEFINITION: _pattern(
        "is",
        "are",
        "means",
        "compensat*",
        "consists",
        "consist*",
        "on",
        "tahendab",
        "huvitab",
        "koosneb",
        "это",
        "компенсир*",
        "состоит",
    ),
    Aspect.TIME: _pattern(
        "within",
        "takes",
        "ready",
        "issued",
        "faster",
        "urgent*",
        "deadline",
        "jooksul",
        "valmib",
        "valjastatakse",
        "kiiremini",
        "kiirmenetlus*",
        "tahtaeg*",
        "в течение",
        "готов*",
        "выдает*",
        "быстрее",
        "срочн*",
        "срок*",
    ),
}

# What a documents question is answered by: the things to bring or attach. A sentence
# with only "needed" ("a passport is needed to travel") speaks of need, not of documents.
_DOCUMENT_THINGS = _pattern(
    # What the sentence tells you to bring is a thing to bring ("Bring your old card").
    "bring",
    "kaasa",
    "с собой",
    "details",
    "andme*",
    "данны*",
    "photo*",
    "certificate*",
    "document*",
    "consent",
    "agreement",
    "paper*",
    "form",
    "foto*",
    "toend*",
    "dokument*",
    "nousolek*",
    "leping*",
    "фото*",
    "справк*",
    "документ*",
    "соглас*",
    "договор*",
    "бумажн*",
)
# Estonian compounds end in their head noun ("tervisetõend", "üürileping",
# "isikutunnistusefoto"): the thing may end a longer word.
# From a word's start, lazily: "\w+…\w*" tried every split of every start, quadratic in a word.
_DOCUMENT_HEADS = re.compile(r"(?<!\w)\w+?(?:toend|leping|nousolek|foto|dokument)")
_REMOTE = _pattern(
    "e mail", "electronic*", "digital*", "e posti*", "elektroon*", "digiallkirj*", "электронн*", "цифров*"
)
# Where a sentence says it has to be done in person: the negative answer to "online?".
_IN_PERSON = _pattern("in person", "personally", "on site", "kohapeal", "isiklikult", "лично", "на месте")
_PERMISSIVE = _pattern("can", "may", "saab", "voib", "можно", "может")
_NEGATION = _pattern(
    "not",
    "no",
    "cannot",
    "can t",
    "don t",
    "doesn t",
    "isn t",
    "aren t",
    "never",
    "without",
    "ei",
    "pole",
    "ara",
    "mitte",
    "ilma",
    "ega",
    "не",
    "нет",
    "нельзя",
    "без",
    "ни",
)
# A condition clause ("if you are not the owner, …") says when the rest holds; its own
# negation is not the answer's.
_CONDITION = re.compile(r"(?<!\w)(?:if|when|unless|kui|если|когда)(?!\w)[^,;]*[,;]")


@dataclass(frozen=True)
class Evidence:
    """How a sentence bears on an aspect: 0 none, 1 it speaks of it, 2 it states it (a
    duration for a time aspect, an amount of money for a cost)."""

    strength: int
    # For a cost: whether an amount of money is given.
    amount: bool = False


def evidence(aspect: Aspect, sentence: str) -> Evidence:
    folded = fold(sentence)
    words = bool(_EVIDENCE[aspect].search(folded))
    if aspect is Aspect.TIME:
        if _DURATION.search(folded) and not _EVIDENCE[Aspect.VALIDITY].search(folded):
            return Evidence(2)
        return Evidence(1 if words else 0)
    if aspect is Aspect.VALIDITY:
        return Evidence(2 if words and _DURATION.search(folded) else int(words))
    if aspect is Aspect.COST:
        if _AMOUNT.search(folded):
            return Evidence(2, amount=True)
        return Evidence(1 if words else 0)
    if aspect is Aspect.ONLINE:
        if words or _WEB_ADDRESS.search(folded):
            return Evidence(2)
        # Sent electronically, signed digitally, by e-mail: online in a way, not a channel.
        return Evidence(1 if _IN_PERSON.search(folded) or _REMOTE.search(folded) else 0)
    if aspect is Aspect.DOCUMENTS:
        # A thing named in a negative statement ("the certificates of an expired card
        # cannot be renewed") is not one to bring.
        named = _DOCUMENT_THINGS.search(folded) or _DOCUMENT_HEADS.search(folded)
        things = named and not negated(sentence)
        return Evidence(2 if words and things else int(words))
    if aspect is Aspect.HOW:
        strong = _EVIDENCE[Aspect.ONLINE].search(folded) or _WEB_ADDRESS.search(folded)
        return Evidence(2 if strong and words else int(words))
    return Evidence(1 if words else 0)


def heading_cues(heading: str) -> tuple[Aspect, ...]:
    """The aspects a section heading names ("Processing time", "Kui palju ja kui kaua",
    "Срок") — headings are often written as the question they answer."""
    aspects, _ = aspects_of(heading)
    folded = fold(heading)
    extra = [a for a in (Aspect.TIME, Aspect.COST) if a not in aspects and _HEADING_NOUNS[a].search(folded)]
    return aspects + tuple(extra)


_HEADING_NOUNS = {
    Aspect.TIME: _pattern("time", "deadline", "aeg", "tahtaeg", "срок*", "время"),
    Aspect.COST: _pattern("fee*", "cost*", "price*", "amount", "tasu", "hind", "размер", "стоимость"),
}


def in_person_only(sentence: str) -> bool:
    """The sentence says it must be done in person ("A first passport is applied for in
    person"), not merely that it can ("your photo can be taken on site")."""
    folded = fold(sentence)
    return bool(_IN_PERSON.search(folded)) and not _PERMISSIVE.search(folded)


_NECESSITY = _pattern(
    "need",
    "needed",
    "have to",
    "has to",
    "must",
    "required",
    "necessary",
    "vaja",
    "pean",
    "peab",
    "peate",
    "tuleb",
    "kohustuslik*",
    "нужен",
    "нужна",
    "нужно",
    "нужны",
    "надо",
    "обязательн*",
    "необходим*",
)


# The words right after the necessity cue: the act asked about ("do I have to *bring*
# the paper", "kas pean *tooma*", "нужно ли *приносить*").
NECESSARY_ACT_WORDS = 2


def necessary_act(text: str) -> list[str]:
    """The words a necessity question asks to be done, right after its cue word ("do I
    have to bring the paper" → ["bring", "the"]); [] when it asks no necessity."""
    folded = fold(text)
    match = _NECESSITY.search(folded)
    if match is None:
        return []
    return re.findall(r"\w+", folded[match.end() :])[:NECESSARY_ACT_WORDS]


def asks_necessity(text: str) -> bool:
    """The question asks whether something is needed ("do I need a passport", "kas passi
    on vaja", "нужен ли паспорт")."""
    return bool(_NECESSITY.search(fold(text)))


def permissive(sentence: str) -> bool:
    """The sentence says something can be done ("you can travel with your ID card")."""
    return bool(_PERMISSIVE.search(fold(sentence)))


def negated(sentence: str) -> bool:
    """The sentence's main statement is negative ("is not moved", "ei tõsteta", "не
    нужно"); a negation inside a condition ("if you are not the owner,") does not count."""
    main = _CONDITION.sub(" ", fold(sentence))
    return bool(_NEGATION.search(main))


def automatic(sentence: str) -> bool:
    return bool(_pattern("automatic*", "automaat*", "автоматич*").search(fold(sentence)))


def names_a_thing(word: str) -> bool:
    """The word is no cue of asking and no evidence of any aspect ("pin", "конверт", not
    "нужны", "kaua", "fee"): the thing a question is about."""
    return not aspects_of(word)[0] and not any(evidence(aspect, word).strength for aspect in Aspect)


def asked_tail(text: str) -> str:
    """What a clause asks about when a situation leads it ("after I send the notice, *how
    long until the municipality registers it*"): the words from its first question word
    on; "" when the clause opens with it (then all of it is asked)."""
    folded = fold(text)
    match = _WH_WORDS.search(folded)
    return folded[match.start() :] if match and match.start() > 0 else ""
