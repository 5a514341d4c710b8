"""RAG answers: extractive (no LLM) and grounded by a DSPy module (DummyLM: scripted)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from services.llm import prepare_llm_environment

prepare_llm_environment()  # before dspy is imported: no price-map fetch, cache in .atc/

from dspy.utils import DummyLM  # noqa: E402

from classifier_svc.candidates import PriorMessage  # noqa: E402
from classifier_svc.conversation import DspyConversationAnswerer  # noqa: E402
from classifier_svc.passages import Source  # noqa: E402
from classifier_svc.rag_answer import RagResponder  # noqa: E402
from classifier_svc.rag_dspy import DspyRagAnswerer, numbered_passages  # noqa: E402
from classifier_svc.rag_extractive import ExtractiveAnswerer  # noqa: E402
from tests.classifier.layer_support import passage  # noqa: E402

WHY_ET = passage(
    "residence.et",
    0.91,
    lang="et",
    title="Elukoha registreerimine",
    section="Miks registreerida",
    text="Registreeritud elukoht annab õiguse kohalikele teenustele. Osa tulumaksust laekub omavalitsusele.",
)
HOW_ET = passage(
    "residence.et",
    0.89,
    lang="et",
    title="Elukoha registreerimine",
    section="Kuidas registreerida",
    text="Elukohateade tuleb esitada ühe kuu jooksul pärast kolimist. Seda saab teha portaalis eesti.ee.",
)
HOW_EN = passage(
    "residence.en",
    0.92,
    title="Registering your place of residence",
    section="How to register",
    text="Submit a notice of residence within one month after moving. Do it online at eesti.ee.",
)
ID_CARD = passage(
    "id-card.en",
    0.9,
    title="Renewing an ID card",
    section="How to apply",
    text="Renew your ID card in the self-service portal of the PPA. The card is valid for five years.",
)


async def test_extractive_answer_quotes_the_section_that_answers_in_the_questions_language() -> None:
    answer = await RagResponder(ExtractiveAnswerer()).answer(
        "Kuidas registreerida oma elukoht?", [HOW_EN, WHY_ET, HOW_ET], "et"
    )
    assert "Seda saab teha portaalis eesti.ee." in answer.text
    assert "Registreeritud elukoht" not in answer.text  # the section on why, not how
    assert answer.text.endswith("Allikas: „Elukoha registreerimine“ — https://example.test/residence.et")
    assert answer.sources == [Source("Elukoha registreerimine", "https://example.test/residence.et")]
    assert answer.llm_calls == 0


async def test_extractive_answer_in_the_passages_language_when_none_is_in_the_users() -> None:
    answer = await RagResponder(ExtractiveAnswerer()).answer("Как продлить ID-карту?", [ID_CARD], "ru")
    # The page is quoted as it is, the frame is in the citizen's language.
    assert answer.text.startswith("Ответ есть только на странице на другом языке:")
    assert "self-service portal" in answer.text
    assert "Источник: «Renewing an ID card»" in answer.text


async def test_grounded_answer_cites_the_passages_it_used() -> None:
    lm = DummyLM([{"answer": "Submit a notice within a month of moving [2]. Renew the card online [1]."}])
    responder = RagResponder(ExtractiveAnswerer(), DspyRagAnswerer(lm))
    answer = await responder.answer("How do I register my residence?", [ID_CARD, HOW_EN], "en")
    assert answer.text == "Submit a notice within a month of moving [2]. Renew the card online [1]."
    assert answer.sources == [
        Source("Registering your place of residence", "https://example.test/residence.en"),
        Source("Renewing an ID card", "https://example.test/id-card.en"),
    ]
    assert answer.llm_calls == 1
    # The model saw the numbered passages it was asked to cite.
    prompt = str(lm.history[-1]["messages"])
    assert "[2] Registering your place of residence — How to register: Submit a notice" in prompt


async def test_an_answer_without_citations_is_not_used() -> None:
    lm = DummyLM([{"answer": "You can do it online."}])
    answer = await RagResponder(ExtractiveAnswerer(), DspyRagAnswerer(lm)).answer(
        "How do I register my residence?", [HOW_EN], "en"
    )
    assert answer.text.startswith("Submit a notice of residence")  # the extractive answer
    assert answer.llm_calls == 1


class UnreachableLLM:
    async def stream(self, question: str, passages: object, lang: str) -> AsyncIterator[str]:
        raise ConnectionError("LLM endpoint unreachable")
        yield ""  # an async generator that fails before its first piece


async def test_an_llm_failure_still_answers_extractively() -> None:
    answer = await RagResponder(ExtractiveAnswerer(), UnreachableLLM()).answer(  # type: ignore[arg-type]
        "How do I register my residence?", [HOW_EN], "en"
    )
    assert "Submit a notice of residence" in answer.text and answer.sources


def test_numbered_passages_format() -> None:
    assert numbered_passages([ID_CARD]).startswith(
        "[1] Renewing an ID card — How to apply: Renew your ID card"
    )


def test_conversation_answer_with_an_llm() -> None:
    lm = DummyLM([{"answer": "You asked how to renew your ID card."}])
    history = [PriorMessage("user", "How do I renew my ID card?"), PriorMessage("assistant", "Online.")]
    assert DspyConversationAnswerer(lm).answer("What did I ask?", history, "en") == (
        "You asked how to renew your ID card."
    )
    assert "user: How do I renew my ID card?" in str(lm.history[-1]["messages"])


async def test_the_context_layer_uses_the_llm_for_questions_about_the_conversation() -> None:
    from classifier_svc.layers import ContextLayer, TurnContext

    lm = DummyLM([{"answer": "Te küsisite ID-kaardi kohta."}])
    layer = ContextLayer(DspyConversationAnswerer(lm))
    history = (
        PriorMessage("user", "Kuidas ID-kaarti uuendada?"),
        PriorMessage("assistant", "Iseteeninduses."),
    )
    decision = await layer.decide(TurnContext("c1", "Mida ma küsisin?", None, "et", history))
    assert decision is not None
    assert (decision.reply, decision.llm_calls) == ("Te küsisite ID-kaardi kohta.", 1)
