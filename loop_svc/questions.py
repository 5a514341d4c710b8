"""What the loop says, in en/et/ru: clarifying questions named in human words,
the continuation prompt, and the short messages that end a session."""

from __future__ import annotations

import gettext
import re
from collections.abc import Sequence
from datetime import date

import pycountry

from loop_svc.extraction.identifiers import describe
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
CANCELLED: dict[Lang, str] = {
    "en": "OK, I've left that. What else can I help you with?",
    "et": "Selge, jätan selle pooleli. Millega saan veel aidata?",
    "ru": "Хорошо, оставим это. Чем ещё могу помочь?",
}
_INVALID: dict[Lang, str] = {
    "en": "“{value}” is not a valid {label}: it should have {form}.",
    "et": "„{value}“ ei ole sobiv {label}: see peaks olema kujul {form}.",
    "ru": "«{value}» не подходит как {label}: нужно {form}.",
}
# Outages say what every hop says (services.runtime.citizen).
CALLER_UNAVAILABLE: dict[Lang, str] = TEMPORARILY_UNAVAILABLE


_MONTHS: dict[Lang, list[str]] = {
    "en": "January February March April May June July August September October November December".split(),
    "et": "jaanuar veebruar märts aprill mai juuni juuli august september oktoober november detsember".split(
        " "
    ),
    "ru": "января февраля марта апреля мая июня июля августа сентября октября ноября декабря".split(),
}
_TOO_LONG: dict[Lang, str] = {
    "en": "I can look up at most {days} days at a time, so not that whole period at once. "
    "Shall I show {first} – {last} instead? (yes/no) Or tell me another period of up to {days} days.",
    "et": "Korraga saan vaadata kõige rohkem {days} päeva, seega mitte kogu seda perioodi korraga. "
    "Kas näitan hoopis {first} – {last}? (jah/ei) Või nimeta mõni muu kuni {days}-päevane periood.",
    "ru": "За один раз я могу посмотреть не больше {days} дней, поэтому не весь этот период сразу. "
    "Показать вместо этого {first} – {last}? (да/нет) Или назовите другой период до {days} дней.",
}
_CLAMPED: dict[Lang, str] = {
    "en": "I can give {low} to {high} at a time (you asked for {given}), so here are {high}.",
    "et": "Korraga saan anda {low} kuni {high} (küsisid {given}), seega siin on {high}.",
    "ru": "За один раз я могу показать от {low} до {high} (вы просили {given}), поэтому вот {high}.",
}
_CLAMPED_LOW: dict[Lang, str] = {
    "en": "I can give {low} to {high} at a time (you asked for {given}), so here is {low}.",
    "et": "Korraga saan anda {low} kuni {high} (küsisid {given}), seega siin on {low}.",
    "ru": "За один раз я могу показать от {low} до {high} (вы просили {given}), поэтому вот {low}.",
}


def spoken_date(day: date, lang: Lang) -> str:
    month = _MONTHS[lang][day.month - 1]
    return f"{day.day}. {month} {day.year}" if lang == "et" else f"{day.day} {month} {day.year}"


def too_long(days: int, first: date, last: date, lang: Lang) -> str:
    """The period asked for is longer than the API serves: the limit and the nearest period."""
    return _TOO_LONG[lang].format(days=days, first=spoken_date(first, lang), last=spoken_date(last, lang))


# Values that exist only up to a day (loop_svc.constraints.beyond_horizon), by how many days
# after today that is (0: today, 1: tomorrow): none yet for the period asked, or the period
# cut at that day.
_NOT_YET: dict[int, dict[Lang, str]] = {
    0: {
        "en": "These values are published only up to today ({last}) at the latest, so there are none "
        "yet from {first}. Shall I show today's instead? (yes/no)",
        "et": "Need andmed avaldatakse kõige kauem tänaseni ({last}), seega küsitud ajal ({first}) neid "
        "veel ei ole. Kas näitan hoopis tänaseid? (jah/ei)",
        "ru": "Эти данные публикуются самое позднее по сегодняшний день ({last}), поэтому с {first} "
        "их ещё нет. Показать вместо этого сегодняшние? (да/нет)",
    },
    1: {
        "en": "These values are published only up to tomorrow ({last}) at the latest: tomorrow's come out "
        "the day before. So there are none yet from {first}. Shall I show tomorrow's instead? (yes/no)",
        "et": "Need andmed avaldatakse kõige kauem homseni ({last}): homsed avaldatakse eelmisel päeval. "
        "Seega küsitud ajal ({first}) neid veel ei ole. Kas näitan hoopis homseid? (jah/ei)",
        "ru": "Эти данные публикуются самое позднее на завтра ({last}): завтрашние выходят накануне. "
        "Поэтому с {first} их ещё нет. Показать вместо этого завтрашние? (да/нет)",
    },
}
_CUT_AT: dict[int, dict[Lang, str]] = {
    0: {
        "en": "These values are published only up to today ({last}), so here they are up to then.",
        "et": "Need andmed avaldatakse kõige kauem tänaseni ({last}), seega siin on need kuni selle päevani.",
        "ru": "Эти данные публикуются самое позднее по сегодняшний день ({last}), поэтому здесь они до "
        "этого дня.",
    },
    1: {
        "en": "These values are published only up to tomorrow ({last}) at the latest, so here they are up "
        "to then.",
        "et": "Need andmed avaldatakse kõige kauem homseni ({last}), seega siin on need kuni selle päevani.",
        "ru": "Эти данные публикуются самое позднее на завтра ({last}), поэтому здесь они до этого дня.",
    },
}


def not_yet(last: date, ahead: int, first: date, lang: Lang) -> str:
    """None of the period asked exists yet: how far the values go, and that day offered."""
    template = _NOT_YET[min(ahead, 1)][lang]
    return template.format(last=spoken_date(last, lang), first=spoken_date(first, lang))


def cut_at(last: date, ahead: int, lang: Lang) -> str:
    """The period asked runs past the last day of values: it is cut there."""
    return _CUT_AT[min(ahead, 1)][lang].format(last=spoken_date(last, lang))


def clamped(param: ParamSpec, given: str, low: int, high: int, lang: Lang) -> str:
    template = _CLAMPED_LOW if int(given) < low else _CLAMPED
    return template[lang].format(given=given, low=low, high=high)


_AVAILABLE: dict[Lang, str] = {
    "en": "It has: {values}. Shall I use {first} instead? (yes/no)",
    "et": "Saadaval: {values}. Kas kasutan hoopis: {first}? (jah/ei)",
    "ru": "Доступно: {values}. Использовать вместо этого {first}? (да/нет)",
}
_NUMBER_IN_ERROR = re.compile(r"(?<![\w.])\d{1,4}(?!\w|\.\d)")
_CODE_EXAMPLE = re.compile(r"\b([A-Z]{2})\b")
# "Supported countries: DE, EE, FI." in an error: the codes the service takes.
_LISTED_CODES = re.compile(
    r"(?:supported|available|allowed|valid)[\w ]*:\s*([A-Z]{2}(?:\s*,\s*[A-Z]{2})*)", re.I
)


def _country_name(code: str, lang: Lang) -> str:
    country = pycountry.countries.get(alpha_2=code)
    if country is None:
        return code
    english = getattr(country, "common_name", None) or country.name
    if lang == "en":
        return english
    translation = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang], fallback=True)
    return translation.gettext(english)


def _shown(param: ParamSpec, value: str, lang: Lang) -> str:
    if param.concept is Concept.COUNTRY and len(value) == 2:
        return _country_name(value.upper(), lang)
    return value


def available_values(param: ParamSpec, sent: str, error_body: str) -> list[str]:
    """Values the service takes instead of `sent`: an enum's values, the codes the
    description gives as examples (a country), or numbers its error names (a year)."""
    if param.enum:
        return [v for v in param.enum if v != sent]
    if param.concept is Concept.COUNTRY:
        examples = _CODE_EXAMPLE.findall(param.description)
        listed = _LISTED_CODES.search(error_body)
        taken = _CODE_EXAMPLE.findall(listed.group(1)) if listed else []
        # The error's list is what the service takes; the description's examples lead it
        # (the home country is offered first), or stand alone when the error lists none.
        codes = [c for c in examples if c in taken] + taken if taken else examples
        return [c for c in dict.fromkeys(codes) if c != sent.upper()]
    if param.concept in (Concept.YEAR, Concept.INTEGER, Concept.NUMBER):
        numbers = [n for n in _NUMBER_IN_ERROR.findall(error_body) if n != sent]
        if param.concept is Concept.YEAR:
            numbers = [n for n in numbers if len(n) == 4]
        return list(dict.fromkeys(numbers))[:3]
    return []


def after_refusal(missing: Sequence[ParamSpec], choices: dict[str, list[str]], lang: Lang) -> str:
    """After the service refused a value (the caller has said which and why): what it
    takes instead, offered, or the question for it again — never the bare "did not accept"."""
    parts = []
    for param in missing:
        options = [_shown(param, v, lang) for v in choices.get(param.name, [])]
        if options:
            parts.append(_AVAILABLE[lang].format(values=", ".join(options), first=options[0]))
    if not parts:
        parts.append(clarifying_question(missing, lang))
    return " ".join(parts)


def invalid_values(problems: Sequence[tuple[ParamSpec, str]], lang: Lang) -> str:
    """What is wrong with each value given and the form expected, from the parameter's
    description example ("“12AB” is not a valid registration number: it should have 3
    digits and 3 letters, e.g. 123ABC.")."""
    sentences = []
    for param, value in problems:
        shape = param.shape
        if shape is None:
            continue
        label = _noun(param, lang)
        sentences.append(_INVALID[lang].format(value=value, label=label, form=describe(shape, lang)))
    return " ".join(sentences)


def _noun(param: ParamSpec, lang: Lang) -> str:
    """The parameter as a noun phrase without an article, in `lang`."""
    key = param.concept
    if key in _LABELS:
        label = _LABELS[key][lang]
        return label[4:] if label.startswith("the ") else label
    return re.sub(r"^(?:the|a|an)\s+", "", _generic_label(param, lang, form=False))


# What a parameter is, by concept, when the catalogue gives no description in the
# citizen's language: never its (English) name inside an Estonian or Russian sentence.
_CONCEPT_NOUNS: dict[Concept, dict[Lang, str]] = {
    Concept.IDENTIFIER: {"en": "the number", "et": "number", "ru": "номер"},
    Concept.INTEGER: {"en": "the number", "et": "arv", "ru": "число"},
    Concept.NUMBER: {"en": "the number", "et": "arv", "ru": "число"},
    Concept.TIME: {"en": "the time", "et": "kellaaeg", "ru": "время"},
    Concept.PLACE: {"en": "the place", "et": "koht", "ru": "место"},
    Concept.BOOLEAN: {"en": "the answer", "et": "vastus", "ru": "ответ"},
    Concept.ENUM: {"en": "the option", "et": "valik", "ru": "вариант"},
}
_WHAT_EXACTLY: dict[Lang, str] = {
    "en": "what exactly I should look for",
    "et": "mida täpsemalt otsin",
    "ru": "что именно искать",
}
_MAX_LABEL_WORDS = 8


def _described(param: ParamSpec, lang: Lang) -> str | None:
    """The first clause of the description in `lang` as a noun phrase, when it is short
    ("The 2-letter ISO country code (e.g., EE)" → "the 2-letter ISO country code")."""
    description = re.split(r"[.(;:]", param.description_in(lang), maxsplit=1)[0].strip(" ,")
    if not description or len(description.split()) > _MAX_LABEL_WORDS:
        return None
    if len(description) < 2 or not description[1].isupper():  # keep "ID-kaardi", "ISO"
        description = description[0].lower() + description[1:]
    if lang == "en" and not description.startswith(("the ", "a ", "an ", "your ")):
        description = f"the {description}"
    return description


def _generic_label(param: ParamSpec, lang: Lang, *, form: bool = True) -> str:
    """The parameter named from its description in `lang`; failing that, in English its
    name's words, in another language what it is (a number, a time) — with the expected
    form when the description's example shows one."""
    label = _described(param, lang)
    if label is None and lang == "en":
        label = f"the {' '.join(name_words(param.name))}"
    if label is None:
        label = _CONCEPT_NOUNS.get(param.concept, {}).get(lang) or _WHAT_EXACTLY[lang]
        shape = param.shape
        if shape is not None and form:
            label += f" ({describe(shape, lang)})"
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
