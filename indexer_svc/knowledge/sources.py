"""Reading knowledge-base source files (Markdown, HTML, plain text) into titled sections.

Metadata comes from the file itself where it can: Markdown front matter (`title`, `url`,
`language`, `keywords`: other names of the topic, comma-separated), HTML `<title>`,
`<html lang>`, the canonical link and `<meta name="keywords">`. A language suffix in the
file name (`id-card.et.md`) also counts; otherwise the text's language is detected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Protocol

from services.language import Lang, parse_lang

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
HTML_SUFFIXES = frozenset({".html", ".htm"})
TEXT_SUFFIXES = frozenset({".txt", ".text"})
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES | HTML_SUFFIXES | TEXT_SUFFIXES
# Bigger files are not a knowledge-base page but something pasted by mistake.
MAX_SOURCE_BYTES = 5 * 1024 * 1024


class UnreadableSource(Exception):
    """A source file that cannot be ingested; the message says why."""


class LanguageGuesser(Protocol):
    def detect(self, text: str, fallback: Lang | None = None) -> Lang: ...


@dataclass(frozen=True)
class Section:
    heading: str
    text: str


@dataclass(frozen=True)
class SourceDocument:
    # Stable id of the document: its file name without the format suffix ("id-card.et").
    slug: str
    title: str
    url: str
    language: str
    sections: tuple[Section, ...]
    # Other names citizens use for the topic (front matter `keywords`, comma-separated).
    keywords: tuple[str, ...] = ()


_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1")
_SPACES = re.compile(r"[ \t]+")


def _clean_markdown(line: str) -> str:
    line = _MD_LINK.sub(r"\1", line)
    line = _MD_EMPHASIS.sub(r"\2", line)
    line = re.sub(r"^\s*([-*+]|\d+[.)])\s+", "", line)
    line = re.sub(r"^\s*>\s?", "", line)
    return _SPACES.sub(" ", line).strip()


def _paragraphs(lines: list[str]) -> str:
    """Lines joined into paragraphs (blank lines separate them)."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        if line:
            current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def parse_markdown(text: str) -> tuple[dict[str, str], str, list[Section]]:
    meta: dict[str, str] = {}
    match = _FRONT_MATTER.match(text)
    if match:
        for line in match.group(1).splitlines():
            key, sep, value = line.partition(":")
            if sep:
                meta[key.strip().lower()] = value.strip().strip("'\"")
        text = text[match.end() :]
    title = ""
    sections: list[Section] = []
    heading = ""
    lines: list[str] = []
    in_code = False

    def flush() -> None:
        body = _paragraphs(lines)
        if body:
            sections.append(Section(heading, body))
        lines.clear()

    for raw in text.splitlines():
        if raw.strip().startswith("```"):
            in_code = not in_code
            continue
        found = None if in_code else _HEADING.match(raw)
        if found:
            level, words = len(found.group(1)), _clean_markdown(found.group(2))
            if level == 1 and not title:
                title = words
                flush()
                continue
            flush()
            heading = words
            continue
        lines.append(_clean_markdown(raw))
    flush()
    return meta, title, sections


class _HtmlReader(HTMLParser):
    _SKIP = frozenset({"script", "style", "nav", "footer", "header", "noscript", "template"})
    _BLOCKS = frozenset({"p", "li", "div", "br", "tr", "section", "article", "dd", "dt", "blockquote"})
    _HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.title = ""
        self.h1 = ""
        self.sections: list[Section] = []
        self._heading = ""
        self._lines: list[str] = []
        self._buffer: list[str] = []
        self._skip_depth = 0
        self._in_title = False
        self._in_heading: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag in self._SKIP:
            self._skip_depth += 1
        elif tag == "html" and values.get("lang"):
            self.meta.setdefault("language", values["lang"])
        elif tag == "title":
            self._in_title = True
        elif tag == "link" and "canonical" in values.get("rel", "").split():
            self.meta.setdefault("url", values.get("href", ""))
        elif tag == "meta" and values.get("property") == "og:url":
            self.meta.setdefault("url", values.get("content", ""))
        elif tag == "meta" and values.get("name", "").lower() == "keywords":
            self.meta.setdefault("keywords", values.get("content", ""))
        elif tag in self._HEADINGS:
            self._end_line()
            self._in_heading = tag
        elif tag in self._BLOCKS:
            self._end_line()

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag == "title":
            self._in_title = False
        elif tag in self._HEADINGS and self._in_heading == tag:
            words = _SPACES.sub(" ", "".join(self._buffer)).strip()
            self._buffer.clear()
            self._in_heading = None
            if tag == "h1" and not self.h1:
                self.h1 = words
                self._flush()
            elif words:
                self._flush()
                self._heading = words
        elif tag in self._BLOCKS:
            self._end_line()

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._in_title:
            self.title += data
        else:
            self._buffer.append(data)

    def _end_line(self) -> None:
        if self._in_heading:
            return
        line = _SPACES.sub(" ", " ".join("".join(self._buffer).split())).strip()
        self._buffer.clear()
        self._lines.append(line)
        self._lines.append("")

    def _flush(self) -> None:
        self._end_line()
        body = _paragraphs(self._lines)
        if body:
            self.sections.append(Section(self._heading, body))
        self._lines.clear()

    def finish(self) -> None:
        self.close()
        self._flush()


def parse_html(text: str) -> tuple[dict[str, str], str, list[Section]]:
    reader = _HtmlReader()
    reader.feed(text)
    reader.finish()
    title = _SPACES.sub(" ", reader.title).strip() or reader.h1
    return reader.meta, title, reader.sections


def parse_text(text: str) -> tuple[dict[str, str], str, list[Section]]:
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    # A short first line followed by a blank line is the title.
    title = ""
    if len(lines) > 1 and lines[0] and len(lines[0]) <= 120 and not lines[1]:
        title = lines.pop(0)
    body = _paragraphs(lines)
    return {}, title, [Section("", body)] if body else []


def _split_name(path: Path) -> tuple[str, Lang | None]:
    """`id-card.et.md` → ("id-card.et", "et"); `guide.md` → ("guide", None)."""
    slug = path.name[: -len(path.suffix)] if path.suffix else path.name
    inner = Path(slug).suffix.lstrip(".")
    return slug, parse_lang(inner) if inner and len(inner) == 2 else None


def read_source(path: Path, detector: LanguageGuesser) -> SourceDocument:
    """Raises UnreadableSource with a reason a person can act on."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise UnreadableSource(
            f"unsupported file type {suffix or '(none)'}; use one of {', '.join(sorted(SUPPORTED_SUFFIXES))}"
        )
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            raise UnreadableSource(f"file is {size} bytes; the limit is {MAX_SOURCE_BYTES}")
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableSource(f"cannot read the file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableSource(f"not UTF-8 text (byte {exc.start})") from None
    if suffix in MARKDOWN_SUFFIXES:
        meta, title, sections = parse_markdown(text)
    elif suffix in HTML_SUFFIXES:
        meta, title, sections = parse_html(text)
    else:
        meta, title, sections = parse_text(text)
    if not sections:
        raise UnreadableSource("no text to ingest")
    slug, name_lang = _split_name(path)
    language = parse_lang(meta.get("language")) or name_lang
    if language is None:
        sample = " ".join(s.text for s in sections)[:2000]
        language = detector.detect(sample)
    url = meta.get("url", "")
    if url and not re.match(r"^https?://\S+$", url):
        raise UnreadableSource(f"url {url!r} is not an absolute http(s) URL")
    return SourceDocument(
        slug=slug,
        title=meta.get("title") or title or slug,
        url=url,
        language=language,
        sections=tuple(sections),
        keywords=keywords_of(meta.get("keywords", "")),
    )


def keywords_of(value: str) -> tuple[str, ...]:
    """The comma-separated names of a `keywords` line, each once, in order."""
    names = (" ".join(name.split()) for name in value.split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def collect_files(paths: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Files to ingest (folders searched recursively for supported files), and the
    given paths that cannot be used, with the reason."""
    files: list[Path] = []
    problems: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES
            )
            if not found:
                problems.append((path, "no Markdown, HTML or text files in this folder"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append((path, "no such file or folder"))
    return list(dict.fromkeys(files)), problems
