"""A knowledge follow-up: a short message after a knowledge or status answer that
continues it ("and how much does it cost?", "ja pass?", "а где её забирать?", "mul on 70",
"how long does it usually take" after an application's status).

Such a message names no topic of its own, or only a new topic without an aspect of its
own. It is answered from the page the previous answer came from (its source link is in
the assistant's reply), or, after a status answer, from the page the status speaks of
(the reply names the document: "Passport", "ID-kaart"). What is asked is the message's
own aspect ("how much"), or, when it asks none ("and for the dad?"), the previous
question's ("how many days …").

Pure functions over the conversation history: the router does the searching.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from classifier_svc.candidates import PriorMessage
from classifier_svc.passages import Passage
from classifier_svc.rag_aspects import aspects_of, fold, is_yes_no
from classifier_svc.rag_extractive import page_of
from classifier_svc.rag_lexical import WordMatcher

# A follow-up is short: a longer message states its own question in full.
MAX_FOLLOW_UP_WORDS = 9
# Of the previous reply, the head that says what it was about (a page's first sentences,
# a status result's document); the source line is left out.
REPLY_HEAD_CHARS = 240

_SOURCE_LINE = re.compile(r"^\s*(?:source|allikas|источник)\s*:.*$", re.I | re.M)
_URL = re.compile(r"https?://\S+")


@dataclass(frozen=True)
class PreviousExchange:
    """The citizen's last question and the assistant's answer to it."""

    question: str
    reply: str

    @property
    def cited_urls(self) -> frozenset[str]:
        return frozenset(u.rstrip(".,)»“”\"'") for u in _URL.findall(self.reply))

    def head(self) -> str:
        """What the reply was about, without its source line."""
        return _SOURCE_LINE.sub(" ", self.reply).strip()[:REPLY_HEAD_CHARS]


def previous_exchange(history: Sequence[PriorMessage]) -> PreviousExchange | None:
    """The last assistant reply and the user message it answered, if any."""
    for index in range(len(history) - 1, 0, -1):
        if history[index].role == "assistant" and history[index].content.strip():
            for earlier in range(index - 1, -1, -1):
                if history[earlier].role == "user":
                    return PreviousExchange(history[earlier].content, history[index].content)
            return None
    return None


# A longer message ("can we do it online or do we have to go somewhere") continues the
# answer too when it names no topic of its own (the router checks the best page's title).
MAX_UNNAMED_FOLLOW_UP_WORDS = 16


def short_enough(message: str) -> bool:
    return len(re.findall(r"\w+", message)) <= MAX_FOLLOW_UP_WORDS


def within_reach(message: str) -> bool:
    """Short enough to be a follow-up when it names no topic of its own."""
    return len(re.findall(r"\w+", message)) <= MAX_UNNAMED_FOLLOW_UP_WORDS


def asks_of_its_own(message: str) -> bool:
    """The message asks an aspect or a yes/no question itself ("and how much?", "can I do
    it online?"), rather than only naming a case ("and for the dad?", "ja pass?")."""
    aspects, _ = aspects_of(message)
    # Without its question mark: a bare "and for the dad?" is a case, not a yes/no question.
    return bool(aspects) or is_yes_no(message.rstrip(" ?!."), aspects)


def search_text(message: str, previous: PreviousExchange) -> str:
    """What the follow-up is searched by: the previous question, what its answer was
    about, and the message."""
    return f"{previous.question} {previous.head()} {message}"


def answer_text(message: str, previous: PreviousExchange) -> str:
    """The question the answer is composed for: the message when it asks something of
    its own, else the previous question with the message's case."""
    if asks_of_its_own(message):
        return message
    return f"{previous.question} {message}"


def names_its_topic(
    message: str, passages: Sequence[Passage], words: WordMatcher, previous: PreviousExchange
) -> bool:
    """A word of the message, other than what it asks (its aspect cue words) and what the
    previous exchange already said, is in the title of the best page found for it: "ja
    pass?" after the ID card names the passport page; "kui kiiresti see registreeritakse?"
    after an answer on registering a residence names nothing new, though another page's
    title ("Lapse sünni registreerimine") has the word too."""
    if not passages:
        return False
    _, cues = aspects_of(message)
    said = words.words(f"{previous.question} {previous.reply}")
    own = {w for w in words.words(message) if fold(w) not in cues and not words.match(w, said)}
    return bool(own) and bool(words.found(own, words.words(passages[0].title)))


def on_cited_page(passages: Sequence[Passage], previous: PreviousExchange) -> list[Passage]:
    """The passages of the page the previous reply cites (its source link), best first."""
    cited = previous.cited_urls
    pages = {page_of(p) for p in passages if p.url and p.url in cited}
    return [p for p in passages if page_of(p) in pages]
