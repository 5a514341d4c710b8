"""The sparse encoder: stable term hashing, stemming across et/ru/en, TF values."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from indexer_svc.sparse import SparseEncoder, term_index
from services.text import tokenize


def test_term_index_is_a_fixed_literal() -> None:
    # Computed once (MD5 of the term, first 4 bytes big-endian, % 50_000); a change here
    # invalidates every stored sparse vector.
    assert term_index("holiday") == 7088
    assert term_index("riigipüha") == 48007
    assert term_index("праздник") == 10278


def test_same_vectors_in_another_process_with_another_hash_seed() -> None:
    code = (
        "import json; from indexer_svc.sparse import SparseEncoder; "
        "v = SparseEncoder().encode('Public holidays in Estonia; riigipühad; праздники'); "
        "print(json.dumps([v.indices, v.values]))"
    )
    runs = []
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(out.stdout))
    here = SparseEncoder().encode("Public holidays in Estonia; riigipühad; праздники")
    assert runs[0] == runs[1] == [here.indices, here.values]


def test_tokenize_splits_snake_and_camel_case() -> None:
    assert tokenize("get_national_holidays countryIsoCode 2026-01-01") == [
        "get", "national", "holidays", "country", "iso", "code", "2026", "01", "01",
    ]  # fmt: skip


def test_inflections_meet_in_each_language() -> None:
    encoder = SparseEncoder()
    assert encoder.encode("riigipühad").indices == encoder.encode("riigipühade").indices
    assert encoder.encode("праздники").indices == encoder.encode("праздников").indices
    assert set(encoder.encode("holiday").indices) <= set(encoder.encode("holidays").indices)


def test_values_are_term_frequencies_on_sorted_indices() -> None:
    vector = SparseEncoder().encode("tax tax TAX address")
    assert vector.indices == sorted(vector.indices)
    weights = dict(zip(vector.indices, vector.values, strict=True))
    assert weights[term_index("tax")] == 3.0
    assert weights[term_index("address")] == 1.0


def test_colliding_terms_accumulate() -> None:
    vector = SparseEncoder(vocab_size=1).encode("tax address")
    assert vector.indices == [0]
    assert vector.values == [2.0]


def test_empty_text_gives_an_empty_vector() -> None:
    vector = SparseEncoder().encode("  ?! ")
    assert vector.indices == [] and not vector


def test_function_words_are_dropped_in_each_language() -> None:
    encoder = SparseEncoder()
    assert encoder.terms("What are the public holidays in Estonia?") == [
        "public",
        "holiday",
        "holidays",
        "estonia",
    ]
    assert encoder.terms("Millised on Eesti riigipühad?") == ["eesti", "riigipühad", "riigipüha"]
    assert encoder.terms("Какие государственные праздники в Эстонии?") == [
        "государствен",
        "праздник",
        "эстон",
    ]


def test_names_inside_a_sentence_are_values_not_intent_words() -> None:
    from services.text import intent_words, names

    assert names("Otsi aadressi Rüütli 10 Tartu") == {"rüütli", "tartu"}
    assert intent_words("Otsi aadressi Rüütli 10 Tartu") == {"otsi", "aadressi"}
    # A capitalised first word of a sentence is not a name.
    assert names("Book a hotel in San Francisco. Thanks") == {"san", "francisco"}
    assert intent_words("what are the public holidays") == {"public", "holidays"}


def test_matched_terms_counts_query_words_found_by_stem() -> None:
    encoder = SparseEncoder()
    text_terms = set(
        encoder.terms("Public holidays; Eesti riigipühad ja rahvuspühad. validFrom (YYYY-MM-DD)")
    )
    # "riigipühade" meets "riigipühad" by its Estonian stem; "holiday" meets "holidays".
    assert encoder.matched_terms(encoder.word_stems("Eesti riigipühade kohta"), text_terms) == 2
    # Numbers never count.
    assert encoder.matched_terms(encoder.word_stems("public holiday in 2026"), text_terms) == 2
    assert encoder.matched_terms(encoder.word_stems("recipe for borscht"), text_terms) == 0


def test_a_twin_encodes_alike_with_stemmers_of_its_own() -> None:
    # Indexing stems on a thread of its own with a twin: the stored vectors and terms must
    # be what the search side computes for the same text.
    encoder = SparseEncoder(1024)
    twin = encoder.twin()
    text = "Riigipühad Eestis järgmisel aastal, public holidays, праздники в Эстонии"
    assert twin.vocab_size == encoder.vocab_size
    assert twin._english is not encoder._english
    assert encoder.encode_terms(twin.terms(text)) == encoder.encode(text)
