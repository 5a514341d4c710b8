"""Generated language-detection sets: templates × names × values in three languages,
and the knowledge pages' fragments, each labelled with the language the reply must be in.

    .venv/bin/python -m bench.language_sets            # accuracy per set, JSON last line

The sets stand for classes of input, not phrases: English with Estonian names inside,
Russian typed in Latin letters, Estonian without diacritics, bare values in a chat, and
page fragments (headings, front matter, paragraphs). tests/test_language.py asserts them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from services.language import Lang, LanguageDetector

KNOWLEDGE = Path(__file__).resolve().parents[1] / "devtools" / "demo_apis" / "knowledge"

STREETS = (
    "Pärnu mnt 10",
    "Narva maantee 7",
    "Viru 4",
    "Ringtee 75",
    "Jõe 2",
    "Tartu mnt 84a",
    "Lai tänav 3",
    "Vabaduse väljak 1",
    "Kesk-Sõjamäe 12",
    "Tuukri põik 5",
    "Mustamäe tee 16",
)
TOWNS = ("Tallinn", "Tartu", "Pärnu", "Haapsalu", "Kuressaare", "Jõhvi", "Võru", "Viljandi", "Rakvere")
HOLIDAYS = (
    "jaanipäev",
    "jõululaupäev",
    "võidupüha",
    "vabariigi aastapäev",
    "taasiseseisvumispäev",
    "suur reede",
    "kadripäev",
    "Eesti Vabariigi aastapäev",
)
PLATES = ("123ABC", "456 DEF", "789xyz", "001TLN")
YEARS = ("2026", "2027")

EN_WITH_NAMES = (
    "what is the postal code of {street} in {town}",
    "find the address {street}, {town}",
    "where is {street} in {town}?",
    "can you look up {street} {town} for me",
    "holidays around {holiday}",
    "is {holiday} a day off in {year}?",
    "when is {holiday} this year",
    "tax for my car {plate} in {town}",
    "how much is the vehicle tax for {plate} in {year}",
    "I live on {street}, how do I renew my ID card",
    "what is the electricity price in {town} tomorrow",
    "are schools in {town} closed on {holiday}?",
)
# Terse: a few English words around the names (where the names outnumber them, the
# sentence is Estonian as much as English: the set's floor allows for those).
EN_TERSE_WITH_NAMES = (
    "zip code {street} {town}",
    "postcode for {street} {town}?",
    "{street} {town} postal code",
    "coordinates of {street}",
    "vehicle tax {plate}",
    "holidays after {holiday}",
)
ET_WITH_NAMES = (
    "mis on {street} {town} postiindeks",
    "leia aadress {street}, {town}",
    "kus asub {street}, {town}?",
    "millal on {holiday} {year}. aastal",
    "kas {holiday} on puhkepäev?",
    "kui suur on mu auto {plate} maks",
    "palun arvuta sõidukimaks autole {plate}",
    "kas koolid on {holiday} ajal suletud",
    "ma elan aadressil {street}, kuidas ID-kaarti uuendada",
    "milline on elektri hind homme {town} kandis",
    # Terse: a word or two of Estonian around the names.
    "postiindeks {street} {town}",
    "{street} {town} koordinaadid",
    "sõidukimaks {plate}",
    "pühad pärast {holiday}",
    "leia {street}",
    "kus on {street}",
)
RU_WITH_NAMES = (
    "какой почтовый индекс у {street} в {town}",
    "найди адрес {street}, {town}",
    "где находится {street}?",
    "когда {holiday} в {year} году",
    "какой налог на машину {plate}",
    "я живу на {street}, как продлить ID-карту",
)
EN_PURE = (
    "what are the public holidays in {country} in {month_en}",
    "how much does electricity cost tomorrow morning",
    "show me the last {n} votes in parliament",
    "when do the school holidays start this year",
    "how long does it take to get a new passport",
    "thanks, that was really helpful",
    "what can you help me with",
    "how do I register the birth of my child",
    "is {month_en} {n} a public holiday",
    "I lost my driving licence, what should I do",
)
ET_PURE = (
    "millised riigipühad on {country_et} {month_et}",
    "kui palju maksab elekter homme hommikul",
    "näita viimast {n} hääletust riigikogus",
    "millal algab koolivaheaeg sel aastal",
    "kui kaua võtab uue passi saamine aega",
    "aitäh, see oli väga abiks",
    "millega sa mind aidata saad",
    "kuidas registreerida lapse sünd",
    "kas {n}. {month_et_nom} on riigipüha",
    "kaotasin juhiloa, mida ma tegema pean",
)
RU_PURE = (
    "какие праздники в {country_ru} в {month_ru}",
    "сколько стоит электричество завтра утром",
    "покажи последние {n} голосований в парламенте",
    "когда начинаются школьные каникулы в этом году",
    "сколько времени занимает получение нового паспорта",
    "спасибо, это очень помогло",
    "чем ты можешь мне помочь",
    "как зарегистрировать рождение ребенка",
    "{n} {month_ru} праздничный день?",
    "я потерял водительские права, что мне делать",
    "какая цена на электричество сегодня вечером",
    "мне нужен налог на машину {plate}",
)
COUNTRIES_EN = ("Estonia", "Finland", "Latvia", "Germany")
COUNTRIES_ET = ("Eestis", "Soomes", "Lätis", "Saksamaal")
COUNTRIES_RU = ("эстонии", "финляндии", "латвии", "германии")
MONTHS_EN = ("January", "May", "June", "December")
MONTHS_ET = ("jaanuaris", "mais", "juunis", "detsembris")
MONTHS_ET_NOM = ("jaanuar", "mai", "juuni", "detsember")
MONTHS_RU = ("январе", "мае", "июне", "декабре")
MONTHS_RU_GEN = ("января", "мая", "июня", "декабря")
NUMBERS = ("2", "3", "5", "10")

# How people type Russian on a Latin keyboard (no standard: each letter its common spelling).
_TYPED_LATIN = {
    "а": "a",
    "б": "b",
    "в": "v",
    "г": "g",
    "д": "d",
    "е": "e",
    "ё": "e",
    "ж": "zh",
    "з": "z",
    "и": "i",
    "й": "y",
    "к": "k",
    "л": "l",
    "м": "m",
    "н": "n",
    "о": "o",
    "п": "p",
    "р": "r",
    "с": "s",
    "т": "t",
    "у": "u",
    "ф": "f",
    "х": "h",
    "ц": "c",
    "ч": "ch",
    "ш": "sh",
    "щ": "sch",
    "ъ": "",
    "ы": "y",
    "ь": "",
    "э": "e",
    "ю": "yu",
    "я": "ya",
}


# The other common habit: "j" for й and the iotated vowels, "kh" and "ts", the soft sign kept.
_TYPED_LATIN_J = _TYPED_LATIN | {
    "й": "j",
    "я": "ja",
    "ю": "ju",
    "ё": "jo",
    "х": "kh",
    "ц": "ts",
    "щ": "shch",
    "ь": "'",
}


def typed_latin(text: str, habit: str = "y") -> str:
    """Russian as typed in Latin letters: "сколько стоит" → "skolko stoit" ("j" habit:
    "skol'ko stoit", "zajavlenija")."""
    table = _TYPED_LATIN_J if habit == "j" else _TYPED_LATIN
    return "".join(table.get(ch, table.get(ch.lower(), ch)) for ch in text)


def strip_diacritics(text: str) -> str:
    return text.translate(str.maketrans("õäöüšžÕÄÖÜŠŽ", "oaousz" + "OAOUSZ"))


@dataclass(frozen=True)
class LabelledText:
    text: str
    lang: Lang
    fallback: Lang | None = None


def _fill(templates: tuple[str, ...], limit: int, **values: tuple[str, ...]) -> Iterator[str]:
    """Each template with its placeholders filled from `values`, combinations taken in a
    fixed stride so every name and value appears (the full product is thousands)."""
    for template in templates:
        names = sorted(set(re.findall(r"{(\w+)}", template)))
        combos = list(itertools.product(*(values[n] for n in names)))
        stride = max(1, len(combos) // limit)
        for combo in combos[::stride][:limit]:
            yield template.format(**dict(zip(names, combo, strict=True)))


_NAMES = {"street": STREETS, "town": TOWNS, "holiday": HOLIDAYS, "plate": PLATES, "year": YEARS}
_PURE_EN = {"country": COUNTRIES_EN, "month_en": MONTHS_EN, "n": NUMBERS}
_PURE_ET = {"country_et": COUNTRIES_ET, "month_et": MONTHS_ET, "month_et_nom": MONTHS_ET_NOM, "n": NUMBERS}
_PURE_RU = {"country_ru": COUNTRIES_RU, "month_ru": MONTHS_RU_GEN, "n": NUMBERS, "plate": PLATES}


def _ru_pure() -> Iterator[str]:
    for text in _fill(RU_PURE, 12, **_PURE_RU):
        # "в {month}" takes the prepositional case, "{n} {month}" the genitive.
        yield re.sub(
            r"в (" + "|".join(MONTHS_RU_GEN) + ")",
            lambda m: "в " + MONTHS_RU[MONTHS_RU_GEN.index(m[1])],
            text,
        )


def page_fragments() -> Iterator[LabelledText]:
    """Every knowledge page's headings, paragraphs and whole-page sample, labelled with the
    language the page declares (the loader takes that, never a guess)."""
    for path in sorted(KNOWLEDGE.glob("*.*.md")):
        lang: Lang = path.name.split(".")[-2]  # type: ignore[assignment]
        body = path.read_text(encoding="utf-8").split("---", 2)[-1]
        for line in body.splitlines():
            text = line.strip("# ").strip()
            if text:
                yield LabelledText(text, lang)


def short_replies() -> Iterator[LabelledText]:
    """Replies with no language of their own (a year, a plate, a date, "ok") keep the chat's."""
    replies = ("2027", "123ABC", "ok", "OK!", "2026-01-01", "12.05", "Viru 4", "Tallinn", "456 DEF", "10")
    for lang, reply in itertools.product(("en", "et", "ru"), replies):
        yield LabelledText(reply, lang, fallback=lang)  # type: ignore[arg-type]


def generated_sets() -> dict[str, list[LabelledText]]:
    ru_latin = [typed_latin(t, habit) for t in _ru_pure() for habit in ("y", "j")] + [
        typed_latin(t, habit) for t in _fill(RU_WITH_NAMES, 8, **_NAMES) for habit in ("y", "j")
    ]
    return {
        "en_with_et_names": [
            LabelledText(t, "en") for t in _fill(EN_WITH_NAMES + EN_TERSE_WITH_NAMES, 12, **_NAMES)
        ],
        "et_with_et_names": [LabelledText(t, "et") for t in _fill(ET_WITH_NAMES, 12, **_NAMES)],
        "ru_with_et_names": [LabelledText(t, "ru") for t in _fill(RU_WITH_NAMES, 12, **_NAMES)],
        "en_pure": [LabelledText(t, "en") for t in _fill(EN_PURE, 12, **_PURE_EN)],
        "et_pure": [LabelledText(t, "et") for t in _fill(ET_PURE, 12, **_PURE_ET)],
        "et_no_diacritics": [
            LabelledText(strip_diacritics(t), "et")
            for t in [*_fill(ET_PURE, 12, **_PURE_ET), *_fill(ET_WITH_NAMES, 6, **_NAMES)]
        ],
        "ru_pure": [LabelledText(t, "ru") for t in _ru_pure()],
        "ru_in_latin": [LabelledText(t, "ru") for t in ru_latin],
        "short_replies": list(short_replies()),
        "pages_en": [f for f in page_fragments() if f.lang == "en"],
        "pages_et": [f for f in page_fragments() if f.lang == "et"],
        "pages_ru": [f for f in page_fragments() if f.lang == "ru"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-v", action="store_true", help="print every miss")
    args = parser.parse_args()
    detector = LanguageDetector()
    summary: dict[str, float] = {}
    for name, cases in generated_sets().items():
        misses = [(c, got) for c in cases if (got := detector.detect(c.text, fallback=c.fallback)) != c.lang]
        summary[name] = round(1 - len(misses) / len(cases), 3)
        print(f"{name:18} {summary[name]:.3f}  ({len(cases)} cases)")
        if args.v:
            for case, got in misses:
                print(f"    {got} ≠ {case.lang}: {case.text}")
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
