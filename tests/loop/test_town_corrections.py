"""A correction that names only a town ("sorry, meant tartu", "ei mõtlesin tartus",
"ааа я перепутал, в тарту конечно") after an address was looked up keeps the street
and house number and moves them to that town; a follow-up that names no town, or a
whole new address, is not read as one."""

from __future__ import annotations

import pytest

from loop_svc.cache import LastCallContext
from loop_svc.extraction import RuleExtractor
from loop_svc.follow_up import FollowUpKind, RuleFollowUpDetector
from loop_svc.schema import EndpointSpec

# (base, Estonian inessive, Russian prepositional in Cyrillic, Russian base in Cyrillic,
# the base read from Russian: "Таллин" is written with one n, as the address reader keeps it)
TOWNS = [
    ("Tartu", "tartus", "тарту", "тарту", "Tartu"),
    ("Pärnu", "pärnus", "пярну", "пярну", "Pärnu"),
    ("Narva", "narvas", "нарве", "нарва", "Narva"),
    ("Viljandi", "viljandis", "вильянди", "вильянди", "Viljandi"),
    ("Tallinn", "tallinnas", "таллине", "таллин", "Tallin"),
]
FRAMES = {
    "en": [
        "sorry, meant {base}",
        "no, i meant {base}",
        "oops, in {base}",
        "ahh sorry, {base}",
        "and in {base}?",
        "actually {base}",
    ],
    "et": [
        "ei mõtlesin {loc}",
        "ahh sorry, {loc} muidugi",
        "vabandust, {loc}",
        "aga {loc}?",
        "tegelikult {base}",
    ],
    "ru": [
        "ааа я перепутал, в {prep} конечно",
        "ой, в {prep}",
        "нет, я имел в виду {ru}",
        "а в {prep}?",
        "извините, {ru}",
    ],
}
STREETS = ["Raekoja plats 1", "Rüütli 1", "Riia 15", "Narva mnt 7", "Ülikooli tn 18"]


def _context(address: EndpointSpec, known: str) -> LastCallContext:
    return LastCallContext(api_name=address.name, endpoint=address, collected_params={"address": known})


CASES = [
    (
        lang,
        frame.format(base=base.lower(), loc=loc, prep=prep, ru=ru),
        from_russian if lang == "ru" else base,
        STREETS[(i + j) % len(STREETS)],
    )
    for lang, frames in FRAMES.items()
    for i, frame in enumerate(frames)
    for j, (base, loc, prep, ru, from_russian) in enumerate(TOWNS)
]


@pytest.mark.parametrize(("lang", "message", "town", "street"), CASES)
@pytest.mark.parametrize("old_town", ["", ", Kuressaare"])
def test_a_town_only_correction_moves_the_address_to_that_town(
    extractor: RuleExtractor,
    address_search: EndpointSpec,
    lang: str,
    message: str,
    town: str,
    street: str,
    old_town: str,
) -> None:
    known = f"{street}{old_town}"
    follow = RuleFollowUpDetector(extractor).detect(message, [_context(address_search, known)], lang)  # type: ignore[arg-type]
    assert follow.kind is FollowUpKind.PARAM_UPDATE, message
    assert follow.updated_params == {"address": f"{street}, {town}"}, message


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "thanks"),
        ("en", "what county"),
        ("en", "no, what is the postal code"),
        ("et", "aitäh, väga abiks"),
        ("et", "ei, mis on sihtnumber"),
        ("et", "aga koordinaadid?"),
        ("ru", "а координаты?"),
        ("ru", "нет, какой индекс"),
    ],
)
def test_a_follow_up_naming_no_town_moves_nothing(
    extractor: RuleExtractor, address_search: EndpointSpec, language: str, message: str
) -> None:
    follow = RuleFollowUpDetector(extractor).detect(
        message,
        [_context(address_search, "Raekoja plats 1, Tallinn")],
        language,  # type: ignore[arg-type]
    )
    assert follow.kind is not FollowUpKind.PARAM_UPDATE or "address" not in follow.updated_params


@pytest.mark.parametrize(
    ("language", "message", "value"),
    [
        ("en", "sorry, i meant viru 4 tallinn", "Viru 4, Tallinn"),
        ("et", "ei, mõtlesin ringtee 75 tartus", "Ringtee 75, Tartu"),
        ("ru", "ой, перепутал, виру 4 в таллине", "Viru 4, Tallin"),
    ],
)
def test_a_correction_with_a_whole_address_takes_that_address(
    extractor: RuleExtractor, address_search: EndpointSpec, language: str, message: str, value: str
) -> None:
    follow = RuleFollowUpDetector(extractor).detect(
        message,
        [_context(address_search, "Raekoja plats 1, Tallinn")],
        language,  # type: ignore[arg-type]
    )
    assert follow.kind is FollowUpKind.PARAM_UPDATE
    assert follow.updated_params["address"] == value
