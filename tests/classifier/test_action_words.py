"""A question whose predicate is one endpoint's action and whose object is another
endpoint's topic ("how did they vote on the car tax") goes to the action's endpoint,
read from the endpoints' own texts (classifier_svc/action_words.py). Generated over
the grammar in en/et/ru: action verb forms × topics × frames; the demo catalogue's
real texts (votings vs vehicle tax), plus synthetic endpoints for the rule's limits."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from classifier_svc.action_words import ActionWords, verb_words
from services.language import LanguageDetector

CATALOGUE = Path(__file__).resolve().parents[2] / "devtools" / "demo_apis" / "catalogue.json"
SHARE = 0.25


def _endpoint(body: dict[str, Any]) -> SimpleNamespace:
    labels = [SimpleNamespace(labels=label["labels"]) for label in body.get("responseLabels", [])]
    return SimpleNamespace(
        description=body["description"], examples=body.get("examples", []), response_labels=labels
    )


ENDPOINTS = {body["name"]: _endpoint(body) for body in json.loads(CATALOGUE.read_text(encoding="utf-8"))}
VOTINGS, TAX = "get_parliament_votings", "get_vehicle_tax_info"
ACTIONS = ActionWords(LanguageDetector())

# (frame with {verb} and {topic}, verb forms, topic phrases) per language.
GRAMMAR = {
    "en": (
        [
            "how did they {verb} on the {topic}",
            "how did parliament {verb} on the {topic} bill",
            "who {verb} against the {topic}",
            "results of the {verb} on the {topic}",
        ],
        ["vote", "voted", "votes", "voting"],
        ["car tax", "vehicle tax", "motor vehicle tax"],
    ),
    "et": (
        ["kuidas {verb} {topic} seaduse üle", "kes {verb} {topic} vastu", "{topic} eelnõu {verb}"],
        ["hääletati", "hääletas", "hääletasid", "hääletus", "hääletuse", "hääletamine"],
        ["mootorsõidukimaksu", "automaksu", "sõidukimaksu"],
    ),
    "ru": (
        ["как {verb} по {topic}", "кто {verb} против: {topic}", "{verb} по закону про {topic}"],
        ["голосовали", "голосовал", "голосования", "голосование", "голосовать"],
        ["налогу на машины", "налогу на автомобиль", "автомобильному налогу"],
    ),
}


@st.composite
def action_on_topic(draw: st.DrawFn) -> str:
    lang = draw(st.sampled_from(sorted(GRAMMAR)))
    frames, verbs, topics = GRAMMAR[lang]
    return draw(st.sampled_from(frames)).format(
        verb=draw(st.sampled_from(verbs)), topic=draw(st.sampled_from(topics))
    )


@settings(max_examples=120, deadline=None)
@given(action_on_topic())
def test_the_action_wins_over_a_topic_match(message: str) -> None:
    chosen = ACTIONS.choose(message, [TAX, VOTINGS], [ENDPOINTS[TAX], ENDPOINTS[VOTINGS]], min_share=SHARE)
    assert chosen == 1, message


@settings(max_examples=60, deadline=None)
@given(action_on_topic())
def test_the_action_endpoint_already_best_stays(message: str) -> None:
    assert (
        ACTIONS.choose(message, [VOTINGS, TAX], [ENDPOINTS[VOTINGS], ENDPOINTS[TAX]], min_share=SHARE) is None
    )


def test_a_question_of_the_topic_alone_keeps_its_endpoint() -> None:
    for message in (
        "how much car tax do i pay",
        "kui suur on mu automaks",
        "сколько налог на мою машину",
        "calculate the vehicle tax for 123ABC",
        "arvuta sõidukimaks",
        "рассчитай налог на машину",
    ):
        assert (
            ACTIONS.choose(message, [TAX, VOTINGS], [ENDPOINTS[TAX], ENDPOINTS[VOTINGS]], min_share=SHARE)
            is None
        )


def test_an_action_with_no_topic_of_the_best_is_no_flip() -> None:
    # Nothing the best is there for: the scores decide.
    assert (
        ACTIONS.choose(
            "how did they vote", [TAX, VOTINGS], [ENDPOINTS[TAX], ENDPOINTS[VOTINGS]], min_share=SHARE
        )
        is None
    )


def test_an_action_word_the_best_also_has_is_no_action_of_its_own() -> None:
    rival = SimpleNamespace(
        description="Count the votes",
        examples=["how many votes for the tax", "voted tax"],
        response_labels=[],
    )
    best = ENDPOINTS[VOTINGS]
    assert (
        ACTIONS.choose(
            "how did they vote on the car tax", [VOTINGS + "_x", VOTINGS], [rival, best], min_share=SHARE
        )
        is None
    )


def test_one_language_s_past_forms_are_no_action() -> None:
    # English "-ed" alone (CLINC: "scheduled", "located" adjectives) is too weak a cue.
    best = SimpleNamespace(
        description="Your reminders", examples=["remind me to check the steak"], response_labels=[]
    )
    rival = SimpleNamespace(
        description="Car service", examples=["I checked my car", "checked tires"], response_labels=[]
    )
    assert (
        ACTIONS.choose(
            "remind me to check the steak", ["reminder", "service"], [best, rival], min_share=SHARE
        )
        is None
    )


def test_verbs_are_read_by_morphology() -> None:
    assert "голосова" in verb_words("Кто голосовал против?", "ru")
    assert "haaleta" in verb_words("Kes hääletas vastu?", "et")
    assert "voted" in verb_words("Who voted against?", "en")
    # Plurals and cases are no verbs: "hääletused" (et plural), "parlamendis" (inessive).
    assert not verb_words("Viimased hääletused parlamendis", "et")
    # Auxiliaries are every endpoint's verbs.
    assert not verb_words("Какие были праздники", "ru")


def test_action_words_read_russian_with_the_detectors_warmed_analyzer(monkeypatch: Any) -> None:
    """One dictionary per thread: the detector's warm-up loads it at start and the action
    words reuse it, so no turn loads a second one (≈ 0.5 s each)."""
    import threading

    import pymorphy3

    made: list[object] = []
    real = pymorphy3.MorphAnalyzer

    def counting() -> object:
        made.append(real())
        return made[-1]

    monkeypatch.setattr(pymorphy3, "MorphAnalyzer", counting)
    found: list[set[str]] = []

    def on_a_fresh_thread() -> None:  # the analyzer is a thread's own
        LanguageDetector().warm_up()
        found.append(verb_words("За что голосовали депутаты", "ru"))
        found.append(verb_words("Они голосуют", "ru"))

    thread = threading.Thread(target=on_a_fresh_thread)
    thread.start()
    thread.join()
    assert len(made) == 1
    assert all(any(w.startswith("голосова") for w in words) for words in found)
