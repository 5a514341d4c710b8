"""A value the API refused (a 4xx), explained from the API's own error in the reader's
language: "The period must not exceed 7 days." → "Periood võib olla kuni 7 päeva."

APIs word their validation errors in a few recurring ways (ASP.NET problem details,
FastAPI, Spring, plain `{"error": …}`): a limit ("must not exceed 7 days", "at most
100", "between 1 and 100"), a lower bound ("applies from 2025", "must be 2025 or
later"), an unsupported value ("The country 'FI' is not supported"), nothing found
("No vehicle is registered with the number '12AB'"), a malformed value ("is not a
valid ISO 8601 date-time", "up to 3 letters and 5–10 digits, e.g. A1234567"). Each
class is read with its numbers and values and said anew in en/et/ru; the API's
English text never reaches an et/ru reader. An error of no known class is said in
general terms, naming the value and the parameter's example when there is one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from caller_svc.endpoint import ParamSpec
from caller_svc.locale_format import country_name
from services.language import Lang

_UNITS: dict[str, dict[Lang, tuple[str, str]]] = {
    # unit: lang → (singular, plural) as the reader counts it
    "day": {"en": ("day", "days"), "et": ("päev", "päeva"), "ru": ("день", "дней")},
    "hour": {"en": ("hour", "hours"), "et": ("tund", "tundi"), "ru": ("час", "часов")},
    "week": {"en": ("week", "weeks"), "et": ("nädal", "nädalat"), "ru": ("неделя", "недель")},
    "month": {"en": ("month", "months"), "et": ("kuu", "kuud"), "ru": ("месяц", "месяцев")},
    "year": {"en": ("year", "years"), "et": ("aasta", "aastat"), "ru": ("год", "лет")},
    "letter": {"en": ("letter", "letters"), "et": ("täht", "tähte"), "ru": ("буква", "букв")},
    "digit": {"en": ("digit", "digits"), "et": ("number", "numbrit"), "ru": ("цифра", "цифр")},
    "character": {"en": ("character", "characters"), "et": ("märk", "märki"), "ru": ("символ", "символов")},
}
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}

_TEXTS: dict[Lang, dict[str, str]] = {
    "en": {
        "at_most": "The service accepts at most {limit}{what}.",
        "between": "The service accepts values from {low} to {high}{what}.",
        "from": "This is only available from {low}{what}.",
        "unsupported": "{value} is not supported by this service.",
        "supported": "It covers: {values}.",
        "not_found": "Nothing was found for {value}.",
        "check": "Please check it: it is written like {example}.",
        "invalid": "{value} is not in the form the service expects{form}.",
        "general": "The service did not accept {value}{form}.",
        "form": " (for example {example})",
        "shape": ": {parts}",
        "and": " and ",
        "up_to": "up to {n}",
        "for": " for {label}",
    },
    "et": {
        "at_most": "Teenus lubab kuni {limit}{what}.",
        "between": "Teenus lubab väärtusi {low} kuni {high}{what}.",
        "from": "See on saadaval alates {low}{what}.",
        "unsupported": "{value} ei ole selles teenuses toetatud.",
        "supported": "Teenuses on olemas: {values}.",
        "not_found": "{value} kohta ei leitud midagi.",
        "check": "Palun kontrolli seda: see kirjutatakse kujul {example}.",
        "invalid": "{value} ei ole sellisel kujul, nagu teenus ootab{form}.",
        "general": "Teenus ei saanud väärtust {value} kasutada{form}.",
        "form": " (näiteks {example})",
        "shape": ": {parts}",
        "and": " ja ",
        "up_to": "kuni {n}",
        "for": " ({label})",
    },
    "ru": {
        "at_most": "Сервис допускает не больше {limit}{what}.",
        "between": "Сервис допускает значения от {low} до {high}{what}.",
        "from": "Это доступно только начиная с {low}{what}.",
        "unsupported": "{value} этим сервисом не поддерживается.",
        "supported": "Доступны: {values}.",
        "not_found": "По запросу {value} ничего не найдено.",
        "check": "Проверьте, пожалуйста: значение пишется так: {example}.",
        "invalid": "{value} не в том виде, который ожидает сервис{form}.",
        "general": "Сервис не принял значение {value}{form}.",
        "form": " (например, {example})",
        "shape": ": {parts}",
        "and": " и ",
        "up_to": "до {n}",
        "for": " ({label})",
    },
}

_LIMIT = re.compile(
    r"(?:must not exceed|cannot exceed|can't exceed|may not exceed|exceeds? (?:the )?(?:maximum|limit) of|"
    r"at most|no more than|not more than|maximum(?: of)?|max(?:imum)? is|up to|longer than|more than)\s+"
    r"(\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|ten)\s*([a-z]+)?",
    re.I,
)
_BETWEEN = re.compile(r"between\s+(-?\d+(?:[.,]\d+)?)\s+and\s+(-?\d+(?:[.,]\d+)?)", re.I)
_FROM = re.compile(
    r"(?:applies|available|valid|supported|possible|allowed|starts?)\s+(?:only\s+)?(?:from|since|after)\s+"
    r"(\S+?)[.,;)]?(?:\s|$)|(?:must be|should be)\s+(?:at least|>=?)\s*(\S+?)[.,;]?(?:\s|$)|"
    r"(\d{4}) or later",
    re.I,
)
_UNSUPPORTED = re.compile(r"not (?:supported|available|covered|allowed)|unsupported|unknown", re.I)
# The values an error says are taken instead: "Supported countries: DE, EE, FI.",
# "Allowed values are: a, b", "valid options: x, y".
_SUPPORTED_LIST = re.compile(
    r"(?:supported|available|allowed|valid|accepted)(?:\s+[a-z]+){0,2}?\s*(?:are|is|:)\s*:?\s*"
    r"((?:[\w-]+)(?:\s*(?:,|;|\bor\b|\band\b)\s*[\w-]+)*)",
    re.I,
)
_NOT_FOUND = re.compile(
    r"not found|no \w+ (?:is |was )?(?:registered|found)|does not exist|no such|unknown \w+", re.I
)
_INVALID = re.compile(
    r"not (?:a )?valid|invalid|malformed|not an? \w+|wrong format|must be an?\b|expected", re.I
)
_QUOTED = re.compile(r"['‘’\"“”«]([^'‘’\"“”»]{1,60})['‘’\"“”»]")
_EXAMPLE = re.compile(r"e\.\s?g\.,?\s*([^\s,;)]+)|for example,?\s*([^\s,;)]+)|näiteks\s+([^\s,;)]+)", re.I)
_COUNTED = re.compile(
    r"(?:(up to|at most)\s+)?(\d+(?:\s*[–-]\s*\d+)?|one|two|three|four|five|six|seven|ten)\s+"
    r"(letters?|digits?|characters?|numbers?)",
    re.I,
)


@dataclass(frozen=True)
class Refusal:
    """One message of a 4xx body, with the parameter it names when it names one."""

    field: str | None
    message: str


def refusals(body: Any) -> list[Refusal]:
    """The messages of an error body: problem details (`errors`, `detail`, `title`),
    `message`/`error`/`errors` lists, FastAPI's `detail: [{loc, msg}]`, or plain text."""
    found: list[Refusal] = []

    def walk(value: Any, field: str | None, depth: int) -> Iterator[Refusal]:
        if depth > 4:
            return
        if isinstance(value, str) and value.strip():
            yield Refusal(field, value.strip())
        elif isinstance(value, list):
            for item in value[:10]:
                yield from walk(item, field, depth + 1)
        elif isinstance(value, dict):
            if "msg" in value:
                loc = value.get("loc")
                name = str(loc[-1]) if isinstance(loc, list) and loc else field
                yield from walk(value["msg"], name, depth + 1)
                return
            for key in ("errors", "detail", "message", "error", "error_description", "reason"):
                if key in value:
                    inner = value[key]
                    if key == "errors" and isinstance(inner, dict):
                        for name, messages in inner.items():
                            yield from walk(messages, str(name), depth + 1)
                    else:
                        yield from walk(inner, field, depth + 1)
            if not found and "title" in value and not any(k in value for k in ("errors", "detail")):
                yield from walk(value["title"], field, depth + 1)

    found.extend(walk(body, None, 0))
    return found


def _number(text: str) -> str:
    return str(_NUMBER_WORDS.get(text.lower(), text)).replace(",", ".")


def _unit(word: str | None) -> str | None:
    if not word:
        return None
    lowered = word.lower().rstrip("s")
    return lowered if lowered in _UNITS else None


def _counted(n: str, unit: str, lang: Lang) -> str:
    singular, plural = _UNITS[unit][lang]
    if lang == "ru":
        value = int(n) if n.isdigit() else 0
        if unit in ("day", "hour", "week", "month", "year", "letter", "digit", "character") and n.isdigit():
            if value % 10 == 1 and value % 100 != 11:
                word = {"day": "день", "hour": "час", "week": "неделю", "month": "месяц", "year": "год"}.get(
                    unit, singular
                )
            elif 2 <= value % 10 <= 4 and not 12 <= value % 100 <= 14:
                word = {"day": "дня", "hour": "часа", "week": "недели", "month": "месяца", "year": "года",
                        "letter": "буквы", "digit": "цифры", "character": "символа"}[unit]  # fmt: skip
            else:
                word = plural
            return f"{n} {word}"
        return f"{n} {plural}"
    return f"{n} {singular if n == '1' else plural}"


def _value_of(message: str, refusal: Refusal, params: Mapping[str, str], lang: Lang) -> str:
    quoted = _QUOTED.search(message)
    value = quoted.group(1) if quoted else (params.get(refusal.field or "", "") if refusal.field else "")
    if not value:
        return ""
    if len(value) == 2 and value.isalpha() and country_name(value, lang):
        return country_name(value, lang) or value
    return f"„{value}“" if lang == "et" else (f"«{value}»" if lang == "ru" else f"'{value}'")


def _example(message: str, param: ParamSpec | None) -> str | None:
    for text in (message, param.description if param else ""):
        m = _EXAMPLE.search(text or "")
        if m:
            return next(g for g in m.groups() if g).rstrip(".")
    return None


def _form(message: str, lang: Lang) -> str:
    """'up to 3 letters and 5–10 digits' said in the reader's language."""
    parts = []
    for m in _COUNTED.finditer(message):
        unit = _unit(m.group(3).replace("number", "digit"))
        if unit is None:
            continue
        n = m.group(2).replace(" ", "").replace("-", "–")
        if m.group(1) and lang == "ru":
            counted = f"{n} {_UNITS[unit][lang][1]}"  # "до 3 букв": the genitive plural
        else:
            counted = _counted(_number(n) if "–" not in n else n, unit, lang)
        parts.append(_TEXTS[lang]["up_to"].format(n=counted) if m.group(1) else counted)
    return _TEXTS[lang]["and"].join(parts)


def _listed(message: str, lang: Lang) -> str | None:
    """The values the error lists as taken, each country code by its name in `lang`."""
    m = _SUPPORTED_LIST.search(message)
    if m is None:
        return None
    values = [v for v in re.split(r"\s*(?:,|;|\bor\b|\band\b)\s*", m.group(1)) if v]
    shown = [(country_name(v, lang) or v) if len(v) == 2 and v.isalpha() else v for v in values]
    return ", ".join(shown)


def explain(
    body: Any, params: Mapping[str, str], specs: Sequence[ParamSpec], lang: Lang, label: Any = None
) -> str | None:
    """The refusal said in `lang`, or None when the body carries no message."""
    texts = _TEXTS[lang]
    by_name = {p.name: p for p in specs}
    sentences: list[str] = []
    for refusal in refusals(body)[:3]:
        message = refusal.message
        param = by_name.get(refusal.field or "")
        if param is None:
            quoted = _QUOTED.search(message)
            param = next((p for p in specs if p.name.lower() in message.lower()), None) or next(
                (p for p in specs if quoted and params.get(p.name, "").upper() == quoted.group(1).upper()),
                None,
            )
            refusal = Refusal(param.name if param else refusal.field, message)
        named = label(param.name, lang) if (label is not None and param is not None) else None
        what = texts["for"].format(label=named) if named else ""
        value = _value_of(message, refusal, params, lang)
        example = _example(message, param)
        form = _form(message, lang)
        form_text = (texts["shape"].format(parts=form) if form else "") + (
            texts["form"].format(example=example) if example else ""
        )
        sentence: str | None = None
        if (m := _BETWEEN.search(message)) is not None:
            sentence = texts["between"].format(low=m.group(1), high=m.group(2), what=what)
        elif (m := _LIMIT.search(message)) is not None and not _COUNTED.search(message):
            unit = _unit(m.group(2))
            limit = _counted(_number(m.group(1)), unit, lang) if unit else _number(m.group(1))
            sentence = texts["at_most"].format(limit=limit, what=what)
        elif (m := _FROM.search(message)) is not None:
            low = next(g for g in m.groups() if g)
            sentence = texts["from"].format(low=low.strip("'\""), what=what)
        elif _NOT_FOUND.search(message) and value:
            sentence = texts["not_found"].format(value=value)
            if example:
                sentence += " " + texts["check"].format(example=example)
        elif _UNSUPPORTED.search(message) and value:
            sentence = texts["unsupported"].format(value=value)
            listed = _listed(message, lang)
            if listed:
                sentence += " " + texts["supported"].format(values=listed)
        elif _INVALID.search(message) and value:
            sentence = texts["invalid"].format(value=value, form=form_text)
        elif value:
            sentence = texts["general"].format(value=value, form=form_text)
        if sentence and sentence not in sentences:
            sentences.append(sentence[:1].upper() + sentence[1:])
    return " ".join(sentences) if sentences else None
