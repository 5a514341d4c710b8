"""The CONTEXT layer's deterministic path: greetings, thanks, goodbyes, "how are you?",
"what can you do?", "who are you / are you a bot?" and "which languages do you speak?".

Only short messages that are small talk as a whole count ("Tere!", "thanks, that was
helpful!", "спасибо, пока"), so "hi, what are the holidays in Latvia?" still goes to the
catalogue. Recognition is by word classes (classifier_svc/lexicon.py: inflections,
missing diacritics and typos), each class kept per language, so the words themselves
tell the language: "Tere!" is too short for a language detector, but it is Estonian.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from enum import StrEnum

from rapidfuzz.distance import Levenshtein

from classifier_svc.lexicon import Concept, Found, Lexicon
from services.language import Lang
from services.text import STOPWORDS


class SmallTalkKind(StrEnum):
    GREETING = "greeting"
    THANKS = "thanks"
    GOODBYE = "goodbye"
    HOW_ARE_YOU = "how_are_you"
    CAPABILITIES = "capabilities"
    IDENTITY = "identity"
    LANGUAGES = "languages"
    # "Do you speak English?", "kas sa eesti keelt oskad": a yes/no question about one of
    # the languages the assistant answers in.
    SPEAKS_LANGUAGE = "speaks_language"
    # "hi, I'm Marko", "tere, mina olen Mari", "меня зовут Олег": the citizen's name.
    INTRODUCTION = "introduction"


@dataclass(frozen=True)
class SmallTalk:
    kind: SmallTalkKind
    language: Lang
    # For INTRODUCTION: the name as the citizen wrote it.
    name: str = ""


_LANGS: tuple[Lang, ...] = ("en", "et", "ru")
# Word classes per language: {class: (en, et, ru)}.
_WORDS: dict[str, tuple[str, str, str]] = {
    "greet": (
        "hi, hello, hey, hiya, howdy, good morning, good afternoon, good evening, greetings, yo",
        "tere, tervist, tsau, tšau, hei, tere hommikust, tere päevast, tere õhtust, hommikust, päevast"
        ", õhtust",
        "привет, здравствуйте, здравствуй, добрый день, добрый вечер, доброе утро, приветствую, здрасте",
    ),
    "thanks": (
        "thanks, thank you, thank u, thx, ty, cheers, appreciate it, much appreciated",
        "aitäh, aitah, tänan, tänud, suur aitäh, tänks",
        "спасибо, спс, благодарю, спасибочки, большое спасибо",
    ),
    # Leaving counts as a goodbye: "ok, ma lähen nüüd, nägemist", "мне пора".
    "bye": (
        "bye, goodbye, good bye, see you, see ya, farewell, have a nice day, take care, gotta go"
        ", got to go, have to go, i'm off, im off, i'm leaving",
        "head aega, nägemist, nägemiseni, tšau, head päeva, kohtumiseni, ilusat päeva, ma lähen"
        ", lähen nüüd, pean minema, hakkan minema",
        "пока, до свидания, всего доброго, всего хорошего, хорошего дня, до встречи, мне пора, я пошел"
        ", я пошла, ухожу",
    ),
    # A word of appraisal beside a thanks ("you're great, thanks for the help!", "sa oled
    # ikka tubli, aitäh abi eest", "спасибо, вы очень помогли"): still nothing asked.
    "praise": (
        "helpful, very helpful, useful, great help, well done, good job, nice job, you're great"
        ", you are great, you rock, the best, for the help, for your help, lovely, brilliant, amazing",
        "tubli, väga tubli, tubli töö, abiks, väga abiks, kasulik, abi eest, abi, hea töö, tore, lahe"
        ", vahva, äge, parim, suurepärane",
        "молодец, молодцы, помог, помогли, помогла, очень помог, полезно, было полезно, за помощь, отлично"
        ", замечательно, лучший, умница",
    ),
    # Having nothing more to ask ("nothing really, thanks", "ei midagi tegelt, aitäh",
    # "нет, больше ничего, спасибо").
    "nothing": (
        "nothing, nothing else, nothing more, no, nope, that's all, thats all, that's it, all good"
        ", not really",
        "ei midagi, mitte midagi, ei, ei ole, rohkem ei, see on kõik, see oli kõik, kõik",
        "ничего, больше ничего, нет, это всё, это все, всё, все",
    ),
    # Introducing oneself: the word after it is the citizen's name ("hi, im marko").
    "introduce": (
        "i am, i'm, im, my name is, my name's, name is, call me, this is",
        "mina olen, ma olen, olen, minu nimi on, mu nimi on, nimi on, minu nimi, mu nimi",
        "меня зовут, моё имя, мое имя, я, это",
    ),
    # An acknowledgement before a thanks or a goodbye ("ok thx", "cool, thanks!",
    # "ладно, пока"): it leaves the message small talk.
    "ack": (
        "ok, okay, k, cool, great, nice, perfect, alright, all right, fine, good, super, awesome"
        ", got it, understood, i see",
        "ok, okei, selge, hästi, hea, tore, super, väga hea, sain aru, arusaadav, olgu, vahva",
        "ок, окей, ладно, хорошо, отлично, понятно, ясно, супер, класс, понял, поняла",
    ),
    # Asking for attention before the question comes ("got a minute?", "есть минутка?",
    # "mul on küsimus"): answered like a greeting, with an offer to help.
    "attention": (
        "got a minute, have a minute, a moment, a sec, a second, a question, ask something"
        ", ask you something, quick question",
        "hetk, hetkeks, minutike, minut aega, küsimus, küsida, üks küsimus, aega",
        "минутка, минутку, минуту, секунду, есть время, вопрос, спросить, можно вопрос",
    ),
    "how_are_you": (
        "how are you, how are you doing, how's it going, hows it going, how do you do, what's up, whats up",
        "kuidas läheb, kuidas sul läheb, kuidas teil läheb, kuidas käsi käib, kuidas elad, mis teed",
        "как дела, как у тебя дела, как у вас дела, как поживаете, как ты",
    ),
    # "what can you do / help me with", "millega sa aidata saad", "что ты умеешь".
    "you": (
        "you, u, ya, yourself, talking to, chatting with, speaking to",
        "sa, sina, te, teie, sind, teid, sinuga, teiega, sul, teil, sinult, teilt",
        "ты, вы, тебя, вас, тобой, вами",
    ),
    "can": (
        "can, could, do, able",
        "oskad, oskate, saad, saate, suudad, suudate, teha, teed, teete, oled",
        "умеешь, умеете, можешь, можете, можно, способен, делаешь, делаете",
    ),
    "help": (
        "help, assist, do, offer, provide, support",
        "aidata, abiks, aitad, aitate, pakud, pakute, oskad, teha",
        "помочь, помогаешь, помогаете, делать, предложить, умеешь, умеете",
    ),
    "what": (
        "what, how, which",
        "mida, millega, mis, milles, kuidas",
        "что, чем, чего, какие, каких, каком, какой, как",
    ),
    "services": (
        "services, topics, things, questions, guides, information, info, subjects",
        "teenuseid, teenused, teemad, teemadel, asju, küsimusi, juhendeid, juhendid, infot, teavet",
        "услуги, темы, вопросы, сервисы, справки, информация, информацию, темам",
    ),
    "help_alone": ("help, help me, menu, options", "abi, appi, aita", "помощь, помоги, помогите, меню"),
    "who": ("who, whom", "kes, kellega", "кто, кем, с кем"),
    "being": (
        "person, human, real person, bot, robot, machine, ai, artificial intelligence, chatbot, computer",
        "inimene, päris inimene, robot, bot, masin, tehisintellekt, tehisaru, juturobot, arvuti",
        "человек, живой человек, бот, робот, машина, искусственный интеллект, нейросеть, чат-бот",
    ),
    "language_word": (
        "language, languages",
        "keel, keeles, keelt, keeltes, keeli",
        "язык, языке, языках, языки",
    ),
    "language_name": (
        "english, estonian, russian",
        "eesti keelt, vene keelt, inglise keelt, inglise keeles, eesti keeles, vene keeles",
        "по-русски, по-эстонски, по-английски, английский, эстонский, русский",
    ),
    # "kas sa eesti keelt oskad", "do you know english": knowing a language is speaking it.
    "speak": (
        "speak, talk, write, understand, communicate, answer, know",
        "räägid, räägite, rääkida, kirjutada, saad aru, mõistad, suhelda, vastad, oskad, oskate",
        "говоришь, говорите, общаться, писать, понимаешь, понимаете, разговаривать, отвечаешь, знаешь"
        ", знаете, владеешь",
    ),
    # What turns a thanks into a request: a question word, "and", an imperative.
    "request": (
        "and, also, but, now, what, when, where, which, how, show, tell, find, give, list, check, can, could",
        "ja, ka, aga, nüüd, mis, millal, kus, milline, kuidas, näita, ütle, leia, anna, kontrolli, kas",
        "а, и, также, но, теперь, что, когда, где, какой, какие, как, покажи, скажи, найди, дай, проверь",
    ),
    # Chat interjections ("lol", "haha", "хм") say nothing either, nor chat spelling of a
    # verb ("r u a bot?"), nor "such a" in "who are you" ("kes sa selline oled", "ты кто такой").
    "filler": (
        "please, pls, plz, actually, even, really, then, me, just, ok, okay, so, well, anyway, today"
        ", lol, haha, hehe, huh, hmm, xd, oh, r",
        "palun, üldse, siis, õige, mulle, mul, mind, ikka, no, noh, okei, nii, oled, olete, täna, on"
        ", tegelt, tegelikult, lol, haha, hehe, ahaa, hmm, xd, selline, sihuke",
        "пожалуйста, вообще, мне, меня, же, ну, ладно, тогда, вот, сейчас, сегодня, есть, на самом деле"
        ", лол, хаха, ахах, хм, ого, такой, такая",
    ),
}
_CONCEPTS = [
    Concept.of(f"{name}_{lang}", words[i]) for name, words in _WORDS.items() for i, lang in enumerate(_LANGS)
]
LEXICON = Lexicon(_CONCEPTS)
# Small talk is short: a longer message is a request that happens to open politely.
# (A greeting in front counts: "доброе утро, а на каких языках с тобой можно
# разговаривать?" is ten words; the whole message must still be small-talk words.)
MAX_WORDS = 12
_DIGIT = re.compile(r"\d")


def _lang_of(found: Found, name: str) -> Lang | None:
    for lang in _LANGS:
        if f"{name}_{lang}" in found:
            return lang
    return None


def _first(found: Found, name: str) -> int | None:
    positions = [p for lang in _LANGS for p in found.positions.get(f"{name}_{lang}", ())]
    return min(positions) if positions else None


def _whole(found: Found) -> bool:
    """Nothing in the message but small-talk words and function words: "what can you
    tell me about passports" has "tell" and "passports" left over, so it is a question."""
    return all(token in STOPWORDS for token in found.uncovered())


# Small talk is a line, not a page: only a message this short is read again squeezed or
# in Cyrillic, so an endless word costs one reading, not three.
_REREAD_MAX_CHARS = 200


def classify_small_talk(message: str) -> SmallTalk | None:
    """The small talk a message is as a whole, or None. Read as written first; then with
    letters drawn out for effect squeezed back ("hii", "tereee", "спасибооо"); then, a
    message in Latin letters, as Russian typed in them ("spasibo", "privet, kto ty?")."""
    text = message.strip()
    if not text or _DIGIT.search(text):
        return None
    talk = _classify(text)
    if talk is not None or len(text) > _REREAD_MAX_CHARS:
        return talk
    if (squeezed := unstretched(text)) != text:
        talk = _classify(squeezed)
    if talk is None and (cyrillic := russian_from_latin(text)) is not None:
        talk = _classify(cyrillic)
        # Only a reading in Russian counts: "no" read as "но" is no Russian small talk.
        if talk is not None and talk.language != "ru":
            talk = None
    return talk


# A letter drawn out for effect: three or more of it anywhere, or two at a word's end
# ("hii", "heyy", "thankss"). Double letters inside a word are spelling ("hello", "aitäh").
_STRETCHED = re.compile(r"([^\W\d_])\1{2,}|([^\W\d_])\2+(?![^\W\d_])")


def unstretched(text: str) -> str:
    """The text with drawn-out letters squeezed to one ("hiii" → "hi", "tereee" → "tere")."""
    return _STRETCHED.sub(lambda m: m.group(1) or m.group(2), text)


# Russian typed in Latin letters the way chats do ("spasibo", "kto ty", "vsyo"): longest
# letter groups first. Only for a message of Latin letters alone.
_LATIN_TO_CYRILLIC = (
    ("shch", "щ"), ("sch", "щ"), ("yo", "ё"), ("jo", "ё"), ("yu", "ю"), ("ju", "ю"), ("ya", "я"),
    ("ja", "я"), ("zh", "ж"), ("kh", "х"), ("ch", "ч"), ("sh", "ш"), ("ts", "ц"), ("a", "а"),
    ("b", "б"), ("v", "в"), ("w", "в"), ("g", "г"), ("d", "д"), ("e", "е"), ("z", "з"), ("i", "и"),
    ("j", "й"), ("k", "к"), ("l", "л"), ("m", "м"), ("n", "н"), ("o", "о"), ("p", "п"), ("r", "р"),
    ("s", "с"), ("t", "т"), ("u", "у"), ("f", "ф"), ("h", "х"), ("c", "ц"), ("y", "ы"), ("x", "кс"),
    ("q", "к"), ("'", "ь"),
)  # fmt: skip
_LATIN_GROUP = re.compile("|".join(re.escape(a) for a, _ in _LATIN_TO_CYRILLIC))
_LATIN_MAP = dict(_LATIN_TO_CYRILLIC)
_LATIN_ONLY = re.compile(r"[a-z\s'.,!?-]+")


def russian_from_latin(text: str) -> str | None:
    """Latin letters read as Russian typed in them ("spasibo bolshoe" → "спасибо болшое"),
    or None when the text has any other letter (an Estonian ä, a Cyrillic one)."""
    lowered = text.lower()
    if not _LATIN_ONLY.fullmatch(lowered):
        return None
    return _LATIN_GROUP.sub(lambda m: _LATIN_MAP[m.group(0)], lowered)


def _classify(text: str) -> SmallTalk | None:
    found = _with_typed_question_word(LEXICON.find(text))
    if found.words == 0 or found.words > MAX_WORDS:
        return None
    lang = _message_lang(found)
    has = lambda name: _lang_of(found, name) is not None  # noqa: E731
    if (introduced := _introduction(text, found, lang)) is not None:
        return introduced
    # Thanks or goodbye first, maybe with a word of appraisal ("thanks, that was
    # helpful!", "aitäh, see oli kõik"), never with a request after it ("thanks, and for
    # Latvia?", "aitäh, nüüd näita homseid hindu").
    thanks, bye = _first(found, "thanks"), _first(found, "bye")
    if 0 in (thanks, bye) and "?" not in text:
        later_request = any(p > 0 for lg in _LANGS for p in found.positions.get(f"request_{lg}", ()))
        if not later_request:
            kind = SmallTalkKind.THANKS if thanks is not None else SmallTalkKind.GOODBYE
            return SmallTalk(kind, _lang_of(found, "thanks" if thanks is not None else "bye") or lang)
    if not _whole(found):
        return None
    # Thanks or goodbye after an acknowledgement ("ok thx", "ладно, пока, хорошего дня",
    # "ok, ma lähen nüüd, nägemist"): nothing but small-talk words, so nothing is asked.
    if (thanks is not None or bye is not None) and "?" not in text:
        kind = SmallTalkKind.THANKS if thanks is not None else SmallTalkKind.GOODBYE
        return SmallTalk(kind, _lang_of(found, "thanks" if thanks is not None else "bye") or lang)
    if has("how_are_you"):
        return SmallTalk(SmallTalkKind.HOW_ARE_YOU, _lang_of(found, "how_are_you") or lang)
    if has("language_name") and has("speak") and not has("what"):
        return SmallTalk(SmallTalkKind.SPEAKS_LANGUAGE, lang)
    if (has("language_word") and (has("speak") or has("what"))) or (has("language_name") and has("speak")):
        return SmallTalk(SmallTalkKind.LANGUAGES, lang)
    if has("you") and (has("being") or has("who")):
        return SmallTalk(SmallTalkKind.IDENTITY, lang)
    if has("what") and has("you") and (has("can") or has("help") or has("services")):
        return SmallTalk(SmallTalkKind.CAPABILITIES, lang)
    if has("help_alone"):
        return SmallTalk(SmallTalkKind.CAPABILITIES, _lang_of(found, "help_alone") or lang)
    if has("what") and has("you") and found.words <= 3:
        return SmallTalk(SmallTalkKind.IDENTITY, lang)
    if has("greet") and _first(found, "greet") == 0:
        return SmallTalk(SmallTalkKind.GREETING, _lang_of(found, "greet") or lang)
    # Not "mida ma küsisin?": with a question word it asks about something.
    if has("attention") and not has("what"):
        return SmallTalk(SmallTalkKind.GREETING, _lang_of(found, "attention") or lang)
    return None


# A name is one word of letters, at most this long; an introduction is short.
MAX_NAME_LETTERS = 30
MAX_INTRODUCTION_WORDS = 7
_NAME_WORDS = {
    # Naming oneself outright ("my name is", "меня зовут") needs no greeting; "I am"
    # does ("hi, I'm Marko"), since "I am unemployed" is no name.
    "en": ("name", "call"),
    "et": ("nimi",),
    "ru": ("зовут", "имя"),
}


def _introduction(text: str, found: Found, lang: Lang) -> SmallTalk | None:
    """ "hi, im marko", "tere, mina olen Mari", "меня зовут Олег": an introduction phrase
    and one word after it that no word class knows (the name), nothing else asked."""
    at = _first(found, "introduce")
    if at is None or found.words > MAX_INTRODUCTION_WORDS or "?" in text:
        return None
    after = [
        (i, t) for i, t in enumerate(found.tokens) if i > at and i not in found.covered and t not in STOPWORDS
    ]
    before = [
        t for i, t in enumerate(found.tokens) if i < at and i not in found.covered and t not in STOPWORDS
    ]
    if len(after) != 1 or before or not after[0][1].isalpha() or len(after[0][1]) > MAX_NAME_LETTERS:
        return None
    named = any(w in found.tokens for words in _NAME_WORDS.values() for w in words)
    if not named and _first(found, "greet") != 0:
        return None
    token = after[0][1]
    written = next((w for w in re.findall(r"[^\W\d_]+", text) if w.lower() == token), token)
    return SmallTalk(SmallTalkKind.INTRODUCTION, _lang_of(found, "introduce") or lang, written)


def name_given(message: str) -> str:
    """The name a message introduces its writer by ("hi, im marko" → "Marko"), or ""."""
    talk = classify_small_talk(message)
    if talk is None or talk.kind is not SmallTalkKind.INTRODUCTION:
        return ""
    return talk.name[:1].upper() + talk.name[1:]


# A question word typed short ("wat can u do", "mda sa oskad", "чо умеешь"): a token of a
# few letters one edit from a question word, with its first letter.
_TYPED_QUESTION_WORD_LETTERS = 4


def _with_typed_question_word(found: Found) -> Found:
    if not found.tokens or 0 in found.covered:
        return found
    token = found.tokens[0]
    if not (3 <= len(token) <= _TYPED_QUESTION_WORD_LETTERS and token.isalpha()):
        return found
    for lang, words in zip(_LANGS, _WORDS["what"], strict=True):
        for word in words.split(", "):
            if " " in word or len(word) < 3 or word[0] != token[0]:
                continue
            if Levenshtein.distance(token, word, score_cutoff=1) <= 1:
                positions = dict(found.positions)
                positions[f"what_{lang}"] = (0, *positions.get(f"what_{lang}", ()))
                return dataclasses.replace(found, positions=positions, covered=found.covered | {0})
    return found


def small_talk_lead(message: str) -> SmallTalk | None:
    """A message that opens with a greeting, a thanks or a goodbye and asks nothing (no
    question mark, no request word, no number): "good morning! busy wednesday huh". Only
    for a message no layer took: it is answered as that small talk, not refused."""
    text = message.strip()
    if not text or _DIGIT.search(text) or "?" in text:
        return None
    found = LEXICON.find(text)
    if found.words == 0 or found.words > MAX_WORDS:
        return None
    if any(f"request_{lang}" in found for lang in _LANGS):
        return None
    for name, kind in (
        ("greet", SmallTalkKind.GREETING),
        ("thanks", SmallTalkKind.THANKS),
        ("bye", SmallTalkKind.GOODBYE),
    ):
        if _first(found, name) == 0:
            return SmallTalk(kind, _lang_of(found, name) or _message_lang(found))
    return None


def _message_lang(found: Found) -> Lang:
    """The language most of the message's small-talk words belong to (English wins a tie:
    "Tere! do you speak english?" is answered in English)."""
    counts = dict.fromkeys(_LANGS, 0)
    for name, positions in found.positions.items():
        lang = name.rsplit("_", 1)[-1]
        if lang in counts and not name.startswith("filler"):
            counts[lang] += len(positions)  # type: ignore[index]
    return max(_LANGS, key=lambda lg: (counts[lg], lg == "en"))
