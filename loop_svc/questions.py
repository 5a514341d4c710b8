"""What the loop says, in en/et/ru: clarifying questions named in human words,
the continuation prompt, and the short messages that end a session."""

from __future__ import annotations

import re
from collections.abc import Sequence

from loop_svc.schema import Concept, ParamSpec, date_pairs, name_words
from services.language import Lang
from services.runtime.citizen import TEMPORARILY_UNAVAILABLE

# A question for one thing that is missing, by concept (and date role).
_SINGLE: dict[str, dict[Lang, str]] = {
    "range": {
        "en": "Which dates should I look up? Please give a start and end date (YYYY-MM-DD).",
        "et": "Milliste kuupäevade kohta otsin? Palun anna algus- ja lõppkuupäev (AAAA-KK-PP).",
        "ru": "За какие даты искать? Пожалуйста, укажите начальную и конечную дату (ГГГГ-ММ-ДД).",
    },
    "start": {
        "en": "From which date should I look? Please give the start date (YYYY-MM-DD).",
        "et": "Mis kuupäevast alates otsin? Palun anna alguskuupäev (AAAA-KK-PP).",
        "ru": "С какой даты искать? Пожалуйста, укажите начальную дату (ГГГГ-ММ-ДД).",
    },
    "end": {
        "en": "Until which date should I look? Please give the end date (YYYY-MM-DD).",
        "et": "Mis kuupäevani otsin? Palun anna lõppkuupäev (AAAA-KK-PP).",
        "ru": "До какой даты искать? Пожалуйста, укажите конечную дату (ГГГГ-ММ-ДД).",
    },
    Concept.DATE: {
        "en": "Which date should I look up? Please give it as YYYY-MM-DD.",
        "et": "Millise kuupäeva kohta otsin? Palun anna see kujul AAAA-KK-PP.",
        "ru": "На какую дату искать? Пожалуйста, укажите её в формате ГГГГ-ММ-ДД.",
    },
    Concept.COUNTRY: {
        "en": "Which country should I look up?",
        "et": "Millise riigi kohta otsin?",
        "ru": "Для какой страны искать?",
    },
    Concept.YEAR: {
        "en": "Which year should I use?",
        "et": "Millist aastat kasutan?",
        "ru": "За какой год?",
    },
    Concept.LANGUAGE: {
        "en": "In which language should the results be?",
        "et": "Mis keeles peaksid tulemused olema?",
        "ru": "На каком языке нужны результаты?",
    },
    Concept.REGISTRATION: {
        "en": "What is the vehicle's registration number?",
        "et": "Mis on sõiduki registreerimisnumber?",
        "ru": "Какой регистрационный номер у транспортного средства?",
    },
    Concept.ADDRESS: {
        "en": "Which address should I look up?",
        "et": "Millist aadressi otsin?",
        "ru": "Какой адрес найти?",
    },
}
_SINGLE[Concept.DATETIME] = _SINGLE[Concept.DATE]

# Labels for listing several missing things in one question.
_LABELS: dict[str, dict[Lang, str]] = {
    "range": {
        "en": "the start and end dates (YYYY-MM-DD)",
        "et": "algus- ja lõppkuupäev (AAAA-KK-PP)",
        "ru": "начальная и конечная даты (ГГГГ-ММ-ДД)",
    },
    "start": {
        "en": "the start date (YYYY-MM-DD)",
        "et": "alguskuupäev (AAAA-KK-PP)",
        "ru": "начальная дата (ГГГГ-ММ-ДД)",
    },
    "end": {
        "en": "the end date (YYYY-MM-DD)",
        "et": "lõppkuupäev (AAAA-KK-PP)",
        "ru": "конечная дата (ГГГГ-ММ-ДД)",
    },
    Concept.DATE: {"en": "the date (YYYY-MM-DD)", "et": "kuupäev (AAAA-KK-PP)", "ru": "дата (ГГГГ-ММ-ДД)"},
    Concept.COUNTRY: {"en": "the country", "et": "riik", "ru": "страна"},
    Concept.YEAR: {"en": "the year", "et": "aasta", "ru": "год"},
    Concept.LANGUAGE: {"en": "the language", "et": "keel", "ru": "язык"},
    Concept.REGISTRATION: {
        "en": "the vehicle registration number",
        "et": "sõiduki registreerimisnumber",
        "ru": "регистрационный номер транспортного средства",
    },
    Concept.ADDRESS: {"en": "the address", "et": "aadress", "ru": "адрес"},
}
_LABELS[Concept.DATETIME] = _LABELS[Concept.DATE]

_GENERIC_SINGLE: dict[Lang, str] = {
    "en": "Could you tell me {label}?",
    "et": "Palun täpsusta: {label}.",
    "ru": "Пожалуйста, уточните: {label}.",
}
_SEVERAL: dict[Lang, str] = {
    "en": "To look this up I need a few details: {labels}.",
    "et": "Selle leidmiseks vajan veel mõnda andmet: {labels}.",
    "ru": "Чтобы найти ответ, мне нужно ещё несколько данных: {labels}.",
}
_AND: dict[Lang, str] = {"en": "and", "et": "ja", "ru": "и"}
_ONE_OF: dict[Lang, str] = {"en": "one of", "et": "üks järgmistest", "ru": "одно из"}
_YES_NO: dict[Lang, str] = {"en": "yes/no", "et": "jah/ei", "ru": "да/нет"}

CONTINUATION: dict[Lang, str] = {
    "en": "I still need some details to answer. Shall we continue? (yes/no)",
    "et": "Vastamiseks on mul veel mõnda andmet vaja. Kas jätkame? (jah/ei)",
    "ru": "Для ответа мне ещё нужны некоторые данные. Продолжим? (да/нет)",
}
# Outages say what every hop says (services.runtime.citizen).
STORE_UNAVAILABLE: dict[Lang, str] = TEMPORARILY_UNAVAILABLE
REJECTED: dict[Lang, str] = {
    "en": "The service did not accept that value.",
    "et": "Teenus ei võtnud seda väärtust vastu.",
    "ru": "Сервис не принял это значение.",
}
# Outages say what every hop says (services.runtime.citizen).
CALLER_UNAVAILABLE: dict[Lang, str] = TEMPORARILY_UNAVAILABLE


def _generic_label(param: ParamSpec, lang: Lang) -> str:
    """A label from the description (English only) or, failing that, the name."""
    words = " ".join(name_words(param.name))
    label = words
    if lang == "en":
        description = re.split(r"[.(;:]", param.description, maxsplit=1)[0].strip()
        if description and len(description.split()) <= 8:
            label = description[0].lower() + description[1:]
        label = label if label.startswith(("the ", "a ", "an ", "your ")) else f"the {label}"
    elif lang in ("et", "ru"):
        label = f"«{words}»" if lang == "ru" else f"„{words}“"
    if param.concept is Concept.ENUM and param.enum:
        label += f" ({_ONE_OF[lang]}: {', '.join(param.enum)})"
    elif param.concept is Concept.BOOLEAN:
        label += f" ({_YES_NO[lang]})"
    return label


def _topics(missing: Sequence[ParamSpec]) -> list[tuple[str, ParamSpec]]:
    """Missing parameters grouped into what a person would be asked: a
    start/end pair becomes one "range" topic."""
    topics: list[tuple[str, ParamSpec]] = []
    paired: dict[str, str] = {}
    for start, end in date_pairs(missing):
        paired[start.name] = "range"
        paired[end.name] = ""
    for param in missing:
        key = paired.get(param.name)
        if key == "":
            continue
        if key == "range":
            topics.append(("range", param))
        elif param.is_dated and param.role is not None:
            topics.append((param.role, param))
        else:
            topics.append((param.concept, param))
    return topics


def _join(labels: list[str], lang: Lang) -> str:
    if len(labels) == 1:
        return labels[0]
    return f"{', '.join(labels[:-1])} {_AND[lang]} {labels[-1]}"


def clarifying_question(missing: Sequence[ParamSpec], lang: Lang) -> str:
    """One question covering everything still missing, in `lang`."""
    topics = _topics(missing)
    if len(topics) == 1:
        key, param = topics[0]
        if key in _SINGLE:
            return _SINGLE[key][lang]
        return _GENERIC_SINGLE[lang].format(label=_generic_label(param, lang))
    labels = [_LABELS[key][lang] if key in _LABELS else _generic_label(param, lang) for key, param in topics]
    return _SEVERAL[lang].format(labels=_join(labels, lang))
