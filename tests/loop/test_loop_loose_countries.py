"""Countries typed loosely: any one typo in a name of six letters or more, no diacritics,
and Russian in Latin letters — generated over pycountry's names, not a list of phrases."""

from __future__ import annotations

import gettext

import cyrtranslit
import pycountry
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loop_svc.extraction.countries import CountryNames
from loop_svc.extraction.text import fold

# Countries people ask the demo services about, and some far away.
CODES = ["EE", "LV", "LT", "FI", "DE", "SE", "NO", "PL", "FR", "ES", "IT", "UA", "BE", "AT", "DK", "NL", "CZ"]


def english(code: str) -> str:
    country = pycountry.countries.get(alpha_2=code)
    assert country is not None
    return str(getattr(country, "common_name", None) or country.name)


def translated(code: str, lang: str) -> str:
    translation = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang])
    return translation.gettext(english(code))


def typo(word: str, kind: int, at: int) -> str:
    """One edit after the first letter: a swap, a letter dropped, doubled or replaced."""
    i = 1 + at % (len(word) - 2)
    if kind == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == 1:
        return word[:i] + word[i + 1 :]
    if kind == 2:
        return word[:i] + word[i] + word[i:]
    return word[:i] + ("x" if word[i] != "x" else "q") + word[i + 1 :]


@settings(max_examples=150, deadline=None)
@given(
    code=st.sampled_from(CODES),
    lang=st.sampled_from(["en", "et"]),
    kind=st.integers(0, 3),
    at=st.integers(0, 20),
)
def test_one_typo_in_a_long_name(countries: CountryNames, code: str, lang: str, kind: int, at: int) -> None:
    name = (english(code) if lang == "en" else translated(code, "et")).lower()
    if " " in name or len(name) < 6:
        return
    typed = typo(name, kind, at)
    text = f"holidays in {typed} next month" if lang == "en" else f"{typed} riigipühad järgmisel kuul"
    found = [m.code for m in countries.find(text)]
    assert found == [code], (name, typed)


@pytest.mark.parametrize("code", CODES)
def test_an_estonian_case_form_without_diacritics(countries: CountryNames, code: str) -> None:
    name = translated(code, "et")
    if " " in name or name[-1] not in "aeiuõäöü":  # a consonant-final name adds a vowel first
        return
    for ending in ("s", "st", "sse"):
        assert [m.code for m in countries.find(f"riigipuhad {fold(name)}{ending}")] == [code], name


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("case", ["gent", "loct", "accs"])
def test_russian_in_latin_letters(countries: CountryNames, code: str, case: str) -> None:
    """The Russian name in the case a question puts it in, typed in Latin letters
    ("v estonii", "dlya latvii")."""
    pymorphy3 = pytest.importorskip("pymorphy3")
    name = translated(code, "ru")
    if " " in name:
        return
    parsed = pymorphy3.MorphAnalyzer().parse(name.lower())[0].inflect({case})
    assert parsed is not None
    latin = cyrtranslit.to_latin(parsed.word, "ru").replace("'", "")
    assert [m.code for m in countries.find(f"prazdniki v {latin} v 2027 godu")] == [code], latin


@pytest.mark.parametrize(
    "text",
    [
        "while you are here",
        "aasta teise poole pühad",
        "is it open on sunday",
        "what about next summer",
        "holidays in december please",
        "mis on järgmine riigipüha",
        "праздники в следующем году",
        "spring holidays",
        "the cheapest hours tonight",
    ],
)
def test_ordinary_words_stay_ordinary(countries: CountryNames, text: str) -> None:
    assert countries.find(text) == []
