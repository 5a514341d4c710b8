import pytest

from services.tokens import split_tokens


@pytest.mark.parametrize(
    "text",
    [
        "",
        "one",
        "  leading and trailing  ",
        "Which dates should I look up?",
        "Leidsin 12 tulemust:\n• uusaasta — 1. jaanuar 2026\n",
        "Праздники:\nпервый,  второй",
        "\n\n",
    ],
)
def test_tokens_join_back_to_the_text(text: str) -> None:
    pieces = split_tokens(text)
    assert "".join(pieces) == text
    assert all(pieces)


def test_tokens_are_words_with_their_whitespace() -> None:
    assert split_tokens("I found 12 results:\n• New") == ["I ", "found ", "12 ", "results:\n", "• ", "New"]
    assert split_tokens("  Shall we") == ["  Shall ", "we"]
