"""Localized replies the classifier gives itself (out-of-domain, small talk, refusals'
companions, confirmations). What the assistant can help with is never written here: it
comes from the catalogue (classifier_svc/catalogue_overview.py)."""

from __future__ import annotations

from classifier_svc.catalogue_overview import Overview
from services.language import Lang

_OUT_OF_DOMAIN_LEAD: dict[Lang, str] = {
    "en": "I'm sorry, I can't help with that here.",
    "et": "Vabandust, sellega ma siin aidata ei saa.",
    "ru": "Извините, с этим я здесь помочь не могу.",
}

# When the search behind every layer fails (the indexer restarting): no layer can
# decide, so the citizen is told to try again instead of getting a server error.
SEARCH_UNAVAILABLE: dict[Lang, str] = {
    "en": (
        "I can't look this up right now: the search is temporarily unavailable. Please try again in a moment."
    ),
    "et": (
        "Ma ei saa seda praegu otsida: otsing on ajutiselt kättesaamatu. Palun proovige hetke pärast uuesti."
    ),
    "ru": "Сейчас я не могу это найти: поиск временно недоступен. Пожалуйста, попробуйте чуть позже.",
}

GREETING: dict[Lang, str] = {
    "en": "Hello! How can I help you today?",
    "et": "Tere! Kuidas saan teid täna aidata?",
    "ru": "Здравствуйте! Чем я могу вам помочь?",
}

# "hi, I'm Marko": greeted by name when the citizen wrote it as a name (capitalised).
INTRODUCTION: dict[Lang, str] = {
    "en": "Nice to meet you{name}! How can I help you today?",
    "et": "Meeldiv tutvuda{name}! Kuidas saan teid täna aidata?",
    "ru": "Приятно познакомиться{name}! Чем я могу вам помочь?",
}

# "What's my name?": the name the citizen introduced themselves with earlier in the chat.
YOUR_NAME: dict[Lang, str] = {
    "en": "You told me your name is {name}.",
    "et": "Te ütlesite, et teie nimi on {name}.",
    "ru": "Вы сказали, что вас зовут {name}.",
}
NAME_UNKNOWN: dict[Lang, str] = {
    "en": "You haven't told me your name in this conversation.",
    "et": "Te pole mulle selles vestluses oma nime öelnud.",
    "ru": "Вы не называли мне своё имя в этом разговоре.",
}

THANKS: dict[Lang, str] = {
    "en": "You're welcome! Is there anything else I can help with?",
    "et": "Palun! Kas saan veel millegagi aidata?",
    "ru": "Пожалуйста! Могу ли я помочь чем-то ещё?",
}

GOODBYE: dict[Lang, str] = {
    "en": "Goodbye, and have a nice day! Write again whenever you need help.",
    "et": "Head aega ja ilusat päeva! Kirjutage julgelt, kui vajate abi.",
    "ru": "До свидания, хорошего дня! Пишите, если понадобится помощь.",
}

HOW_ARE_YOU: dict[Lang, str] = {
    "en": "I'm fine, thank you! How can I help you today?",
    "et": "Aitäh, mul läheb hästi! Kuidas saan teid täna aidata?",
    "ru": "Спасибо, у меня всё хорошо! Чем я могу вам помочь?",
}

IDENTITY: dict[Lang, str] = {
    "en": "I'm a virtual assistant (a chatbot), not a person.",
    "et": "Olen virtuaalne abiline (juturobot), mitte inimene.",
    "ru": "Я виртуальный помощник (чат-бот), а не живой человек.",
}

LANGUAGES: dict[Lang, str] = {
    "en": "You can write to me in English, Estonian or Russian, and I will answer in the same language.",
    "et": "Võite mulle kirjutada eesti, inglise või vene keeles – vastan samas keeles.",
    "ru": "Мне можно писать на русском, эстонском или английском языке – я отвечу на том же языке.",
}

# "Do you speak English?": the language named is one of the three the assistant answers in.
YES: dict[Lang, str] = {"en": "Yes!", "et": "Jah!", "ru": "Да!"}

_CAN_HELP: dict[Lang, str] = {
    "en": "I can look these up for you: {offers}.",
    "et": "Saan teie eest järele vaadata: {offers}.",
    "ru": "Я могу найти для вас: {offers}.",
}
_TOPICS: dict[Lang, str] = {
    "en": "I can also answer questions about: {topics}.",
    "et": "Oskan vastata ka küsimustele teemadel: {topics}.",
    "ru": "Также могу ответить на вопросы по темам: {topics}.",
}
_JUST_ASK: dict[Lang, str] = {
    "en": "Just ask, and I will ask for anything I still need.",
    "et": "Küsige julgelt – kui mul on veel midagi vaja, küsin üle.",
    "ru": "Просто спросите, а недостающее я уточню.",
}
_NOTHING_YET: dict[Lang, str] = {
    "en": "I can answer questions about the services connected to this assistant.",
    "et": "Saan vastata küsimustele assistendiga ühendatud teenuste kohta.",
    "ru": "Я могу отвечать на вопросы о подключённых к ассистенту сервисах.",
}

# A weak match is confirmed before anything runs.
CONFIRM: dict[Lang, str] = {
    "en": "Do you mean {title}? If so, please say a bit more about what you need.",
    "et": "Kas mõtlete teemat „{title}“? Kui jah, kirjutage palun veidi täpsemalt, mida vajate.",
    "ru": "Вы имеете в виду «{title}»? Если да, уточните, пожалуйста, что именно вам нужно.",
}


def _joined(items: list[str], lang: Lang) -> str:
    if len(items) <= 1:
        return "".join(items)
    last = {"en": " or ", "et": " või ", "ru": " или "}[lang]
    return ", ".join(items[:-1]) + last + items[-1]


def _listed(items: list[str], lang: Lang) -> str:
    lowered = [_lower_first(t, lang) for t in items]
    return _joined(lowered, lang)


def _lower_first(title: str, lang: Lang) -> str:
    # "Public holidays" reads "public holidays" inside a sentence; a name ("Riigikogu
    # votings", "ID card …") keeps its capital (its second letter is upper or it is one
    # of a few words that are names in every sentence: the title's own second word tells).
    if len(title) > 1 and title[0].isupper() and not title[1].isupper() and not _starts_with_name(title):
        return title[0].lower() + title[1:]
    return title


def _starts_with_name(title: str) -> bool:
    first = title.split()[0]
    # A word with a capital inside it ("Riigikogu" has none; "ID-kaardi" has) or a
    # hyphenated code is a name; a plain first word is a common noun.
    return any(c.isupper() for c in first[1:]) or first.endswith("-")


def capabilities(overview: Overview, lang: Lang) -> str:
    """What the catalogue offers, as a friendly list in `lang`."""
    parts = []
    offers = overview.offer_titles(lang)
    topics = overview.topic_titles(lang)
    if offers:
        parts.append(_CAN_HELP[lang].format(offers=_listed(offers, lang)))
    if topics:
        parts.append(_TOPICS[lang].format(topics=_listed(topics, lang)))
    if not parts:
        parts.append(_NOTHING_YET[lang])
    parts.append(_JUST_ASK[lang])
    return " ".join(parts)


def out_of_domain(overview: Overview, lang: Lang) -> str:
    offers = overview.offer_titles(lang)
    if not offers:
        return f"{_OUT_OF_DOMAIN_LEAD[lang]} {_NOTHING_YET[lang]}"
    return f"{_OUT_OF_DOMAIN_LEAD[lang]} {_CAN_HELP[lang].format(offers=_listed(offers, lang))}"


def confirm(title: str, lang: Lang) -> str:
    return CONFIRM[lang].format(title=_lower_first(title, lang) if lang == "en" else title)
