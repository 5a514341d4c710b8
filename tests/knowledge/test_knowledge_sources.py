"""Reading Markdown, HTML and text sources, and cutting them into passages."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer_svc.knowledge.chunking import chunk_document, document_of
from indexer_svc.knowledge.sources import UnreadableSource, collect_files, read_source
from services.language import LanguageDetector


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector()


def test_markdown_front_matter_title_and_sections(tmp_path: Path, detector: LanguageDetector) -> None:
    path = tmp_path / "guide.md"
    path.write_text(
        "---\ntitle: The guide\nurl: https://example.test/guide\n---\n# Heading one\n\nIntro **text**.\n\n"
        "## How to apply\n- Step [one](https://x.test).\n- Step two.\n\n```\ncode\n```\n",
        encoding="utf-8",
    )
    document = read_source(path, detector)
    assert (document.slug, document.title, document.url, document.language) == (
        "guide",
        "The guide",
        "https://example.test/guide",
        "en",
    )
    assert [(s.heading, s.text) for s in document.sections] == [
        ("", "Intro text."),
        ("How to apply", "Step one. Step two.\n\ncode"),
    ]


def test_html_title_lang_canonical_and_headings(tmp_path: Path, detector: LanguageDetector) -> None:
    path = tmp_path / "leht.html"
    path.write_text(
        '<html lang="et"><head><title>Elukoht</title><link rel="canonical" href="https://x.test/e">'
        "<style>p{}</style></head><body><nav>menüü</nav><h1>Elukoht</h1><p>Esimene lõik.</p>"
        "<h2>Kuidas registreerida</h2><p>Teine &amp; lõik.</p><script>x()</script></body></html>",
        encoding="utf-8",
    )
    document = read_source(path, detector)
    assert (document.title, document.url, document.language) == ("Elukoht", "https://x.test/e", "et")
    assert [(s.heading, s.text) for s in document.sections] == [
        ("", "Esimene lõik."),
        ("Kuidas registreerida", "Teine & lõik."),
    ]


def test_text_language_from_name_or_detection(tmp_path: Path, detector: LanguageDetector) -> None:
    named = tmp_path / "notes.ru.txt"
    named.write_text("Title line\n\nSome text in English anyway.", encoding="utf-8")
    assert read_source(named, detector).language == "ru"
    detected = tmp_path / "notes.txt"
    detected.write_text("Как получить родительское пособие после рождения ребёнка?", encoding="utf-8")
    document = read_source(detected, detector)
    assert document.language == "ru" and document.title == "notes"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("a.pdf", b"%PDF-1.4", "unsupported file type .pdf"),
        ("b.md", b"\xff\xfe\x00bad", "not UTF-8"),
        ("c.md", b"---\ntitle: x\n---\n# Only a title\n", "no text"),
        ("d.md", b"---\nurl: ftp://x\n---\ntext", r"not an absolute http\(s\) URL"),
    ],
)
def test_unreadable_sources_say_why(
    tmp_path: Path, detector: LanguageDetector, name: str, content: bytes, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(UnreadableSource, match=reason):
        read_source(path, detector)


def test_chunks_stay_in_their_section_and_under_the_limit(tmp_path: Path, detector: LanguageDetector) -> None:
    sentence = "This sentence is about renewing documents at the office. "
    path = tmp_path / "long.en.md"
    path.write_text(f"# Long\n\n## First\n{sentence * 30}\n\n## Second\nShort one.\n", encoding="utf-8")
    chunks = chunk_document(read_source(path, detector), max_chars=400)
    assert all(len(c.text) <= 400 for c in chunks)
    assert [c.document_id for c in chunks] == [f"long.en#{i}" for i in range(len(chunks))]
    assert {c.section for c in chunks[:-1]} == {"First"} and chunks[-1].section == "Second"
    assert document_of(chunks[-1].document_id) == "long.en"
    assert len({c.content_hash for c in chunks}) == len(chunks)


def test_folders_are_searched_and_missing_paths_reported(tmp_path: Path) -> None:
    (tmp_path / "kb" / "sub").mkdir(parents=True)
    (tmp_path / "kb" / "a.md").write_text("a", encoding="utf-8")
    (tmp_path / "kb" / "sub" / "b.html").write_text("b", encoding="utf-8")
    (tmp_path / "kb" / "image.png").write_bytes(b"x")
    files, problems = collect_files([tmp_path / "kb", tmp_path / "nope.md"])
    assert [f.name for f in files] == ["a.md", "b.html"]
    assert problems == [(tmp_path / "nope.md", "no such file or folder")]


def test_keywords_from_front_matter_and_html_meta_reach_every_chunk(
    tmp_path: Path, detector: LanguageDetector
) -> None:
    # The page's other names for its topic, each once, in order; searched with each passage.
    markdown = tmp_path / "residence.et.md"
    markdown.write_text(
        "---\ntitle: Elukoha registreerimine\n"
        "keywords: sissekirjutus,  sisse kirjutada , ,sissekirjutus\n---\n"
        "## Kuidas\nEsimene lõik.\n\n## Kui eluruum ei ole sinu oma\nTeine lõik.\n",
        encoding="utf-8",
    )
    document = read_source(markdown, detector)
    assert document.keywords == ("sissekirjutus", "sisse kirjutada")
    assert {chunk.keywords for chunk in chunk_document(document)} == {("sissekirjutus", "sisse kirjutada")}
    html = tmp_path / "propiska.html"
    html.write_text(
        '<html lang="ru"><head><title>Регистрация</title>'
        '<meta name="Keywords" content="прописка, прописаться">'
        "</head><body><p>Текст.</p></body></html>",
        encoding="utf-8",
    )
    assert read_source(html, detector).keywords == ("прописка", "прописаться")
    plain = tmp_path / "plain.md"
    plain.write_text("# Title\n\nText.\n", encoding="utf-8")
    assert read_source(plain, detector).keywords == ()


def test_a_huge_keywords_line_is_read_promptly(tmp_path: Path, detector: LanguageDetector) -> None:
    path = tmp_path / "many.md"
    path.write_text("---\nkeywords: " + "a, ,," * 33_334 + "\n---\n# T\n\nText.\n", encoding="utf-8")
    assert read_source(path, detector).keywords == ("a",)
