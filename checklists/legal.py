"""The legal texts: split into articles and their clauses, so quotations and coverage can be checked verbatim."""

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# Headings look like "Art. 143º.-", "Art. 24. -", "Art. 4° -", "Artículo 34." at line start.
HEADING = re.compile(r"^(?:Art\.|Artículo)\s*(\d+)", re.MULTILINE)
# A clause starts a line: lettered "a) ", numbered "1º. ", "1º) ", "13.º ", "3.ª ", "7ª ", "1. ". The Colombian
# decree's copy prints many numbers as a bullet and a damaged "1" ("• 1. º", "• 1. ª", "• 1."): those are
# numbered by their place in the article (see numbered_label).
CLAUSE = re.compile(
    r"^(?P<bullet>•\s*)?(?:(?P<letter>[a-zñ])\)|(?P<number>\d+)\s*(?:\.?\s*[º°ª]\s*[.)]?|[.)]))\s+(?=\S)", re.MULTILINE)
LETTERS = "abcdefghijklmnñopqrstuvwxyz"


def normalize(text: str) -> str:
    """Collapse whitespace and use NFC, so quotes compare independently of line breaks."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def clause_ref(article: str, clause: str | None) -> str:
    """How a clause is written in data and reports: "41(b)", "18(3)"; a whole article is its number."""
    return article if clause is None else f"{article}({clause})"


@dataclass(frozen=True)
class Article:
    """One article's normalised text, split into its opening words and its numbered or lettered clauses."""

    text: str
    opening: str = ""  # the words before the first clause ("Son obligaciones de los Armadores:")
    clauses: Mapping[str, str] = field(default_factory=dict)  # label ("b", "3") -> normalised text, in order

    def holds(self, quote: str, clauses: Iterable[str] | None = None) -> bool:
        """True if the quote is in the article; with `clauses`, in its opening words or one of those clauses."""
        quote = normalize(quote)
        if clauses is None:
            return quote in self.text
        return quote in self.opening or any(quote in self.clauses[c] for c in clauses if c in self.clauses)

    def clauses_holding(self, quote: str) -> list[str]:
        """The labels of the clauses whose text holds the quote."""
        quote = normalize(quote)
        return [label for label, text in self.clauses.items() if quote in text]


@dataclass(frozen=True)
class Source:
    """One instrument (possibly split over several files) and its articles' text."""

    name: str
    short_es: str
    short_en: str
    files: tuple[str, ...]
    parts: Mapping[str, Article]  # article number -> its text and clauses
    full_text: str  # normalised text of all files
    foreign: bool = False  # a foreign instrument has no force in Paraguay by itself
    binding_setting: str | None = None  # the setting that declares a foreign instrument binding

    @property
    def articles(self) -> dict[str, str]:
        """Article number -> normalised text."""
        return {number: article.text for number, article in self.parts.items()}

    def contains(self, quote: str) -> bool:
        """True if the quote appears anywhere in the instrument."""
        return normalize(quote) in self.full_text

    def article_contains(self, article: str, quote: str) -> bool:
        """True if the quote appears inside the given article."""
        return article in self.parts and self.parts[article].holds(quote)


def numbered_label(printed: str, bullet: bool, place: int, article: str) -> str:
    """A numbered clause's label: its place in the article, which a printed number must match.

    The damaged copy prints a bullet and "1" for most numbers (art. 18: 1º, 2º, 3º, • 1. º, ..., • 8º); only that
    mark is numbered by place. Any other number out of place is a misreading and raises ValueError.
    """
    if printed != str(place) and not (bullet and printed == "1"):
        raise ValueError(f"art. {article}: clause {printed} found where clause {place} was expected")
    return str(place)


def split_clauses(article: str, text: str) -> Article:
    """One article's raw text as an Article: the first kind of mark (letters or numbers) divides it into clauses.

    Marks of the other kind nest inside the current clause (the Colombian decree art. 5, clause 14, lists a)-h)),
    and a paragraph after a clause belongs to it. Letters must run a), b), c)...; numbers by place.
    """
    marks = list(CLAUSE.finditer(text))
    kind = None if not marks else ("letter" if marks[0].group("letter") else "number")
    marks = [m for m in marks if m.group(kind)] if kind else []
    clauses: dict[str, str] = {}
    for place, (mark, following) in enumerate(zip(marks, [*marks[1:], None]), 1):
        if kind == "letter":
            label = mark.group("letter")
            if label != LETTERS[place - 1]:
                raise ValueError(f"art. {article}: clause {label}) found where {LETTERS[place - 1]}) was expected")
        else:
            label = numbered_label(mark.group("number"), bool(mark.group("bullet")), place, article)
        clauses[label] = normalize(text[mark.start():following.start() if following else len(text)])
    opening = normalize(text[:marks[0].start()]) if marks else ""
    return Article(normalize(text), opening, clauses)


def split_articles(text: str) -> dict[str, Article]:
    """Map article numbers to their Article (heading to next heading)."""
    matches = list(HEADING.finditer(text))
    articles = {}
    for match, following in zip(matches, matches[1:] + [None]):
        end = following.start() if following else len(text)
        articles[match.group(1)] = split_clauses(match.group(1), text[match.start():end])
    return articles


def read_source(name: str, short_es: str, short_en: str, directory: Path,
                files: Iterable[str]) -> Source:
    """Read one instrument's files; raise OSError/ValueError if a file is missing or repeats articles."""
    files = tuple(files)
    articles: dict[str, Article] = {}
    texts = []
    for file in files:
        text = (directory / file).read_text(encoding="utf-8")
        texts.append(normalize(text))
        for number, body in split_articles(text).items():
            if number in articles:
                raise ValueError(f"article {number} appears twice in {name}")
            articles[number] = body
    return Source(name, short_es, short_en, files, articles, " ".join(texts))
