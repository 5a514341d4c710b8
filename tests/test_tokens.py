import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.tokens import split_lines, split_tokens


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


_TEXTS = st.text(alphabet=st.sampled_from([*"ab Ü1.\n\t", "ж", "—"]), max_size=600)


@given(_TEXTS)
def test_lines_join_back_to_the_text(text: str) -> None:
    pieces = split_lines(text)
    assert "".join(pieces) == text
    assert all(pieces)


@given(st.lists(st.text(alphabet="abc ", min_size=1, max_size=120), min_size=1, max_size=30))
def test_a_list_is_a_piece_per_line(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    assert len(split_lines(text)) <= len(lines)


def test_a_long_line_is_cut_after_a_word() -> None:
    text = "word " * 200
    pieces = split_lines(text)
    assert len(pieces) > 1 and all(piece.endswith(" ") for piece in pieces)
