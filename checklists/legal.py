"""The legal texts: split into articles so quotations can be checked verbatim."""

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

# Headings look like "Art. 143º.-", "Art. 24. -", "Art. 4° -", "Artículo 34." at line start.
HEADING = re.compile(r"^(?:Art\.|Artículo)\s*(\d+)", re.MULTILINE)


def normalize(text: str) -> str:
    """Collapse whitespace and use NFC, so quotes compare independently of line breaks."""
    return " ".join(unicodedata.normalize("NFC", text).split())


@dataclass(frozen=True)
class Source:
    """One instrument (possibly split over several files) and its articles' text."""

    name: str
    short_es: str
    short_en: str
    files: tuple[str, ...]
    articles: Mapping[str, str]  # article number -> normalised text
    full_text: str  # normalised text of all files
    foreign: bool = False  # a foreign instrument has no force in Paraguay by itself
    binding_setting: str | None = None  # the setting that declares a foreign instrument binding

    def contains(self, quote: str) -> bool:
        """True if the quote appears anywhere in the instrument."""
        return normalize(quote) in self.full_text

    def article_contains(self, article: str, quote: str) -> bool:
        """True if the quote appears inside the given article."""
        return normalize(quote) in self.articles.get(article, "")


def split_articles(text: str) -> dict[str, str]:
    """Map article numbers to their normalised text (heading to next heading)."""
    matches = list(HEADING.finditer(text))
    articles = {}
    for match, following in zip(matches, matches[1:] + [None]):
        end = following.start() if following else len(text)
        articles[match.group(1)] = normalize(text[match.start():end])
    return articles


def read_source(name: str, short_es: str, short_en: str, directory: Path,
                files: Iterable[str]) -> Source:
    """Read one instrument's files; raise OSError/ValueError if a file is missing or repeats articles."""
    files = tuple(files)
    articles: dict[str, str] = {}
    texts = []
    for file in files:
        text = (directory / file).read_text(encoding="utf-8")
        texts.append(normalize(text))
        for number, body in split_articles(text).items():
            if number in articles:
                raise ValueError(f"article {number} appears twice in {name}")
            articles[number] = body
    return Source(name, short_es, short_en, files, articles, " ".join(texts))
