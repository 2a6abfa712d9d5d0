"""Every quotation of the law anywhere in the repository is the law's own words, in the article it is given to.

Pure: reads the repository's files and the legal texts in checklists/sources/ (the faithful copy the app reads;
tests/checklists/test_checklists_items.py compares it with the authority's texts). No app, no database.

How a quotation is recognised:

* where: the prose of every text file, never the legal texts themselves, the frozen snapshots or vendored code.
  Markdown outside code (each paragraph, list item or table row is one piece); TOML string values (each table
  one piece) and comments; Python comments, docstrings and messages (`Msg`, `N_`); templates' text and `_()`
  messages; scripts' comments and messages; the translation catalogue's entries;
* what: words between «…», “…” or "…", at least two of them with letters, in a piece that names an article
  (`art. 201`, `arts. 62 and 107`, `arts. 133–137`, `artículo 34`, `article 5`), or in a checklist table (an
  item, an exemption) that cites one;
* the check: the words (whitespace collapsed; "..." or "…" inside marks words left out, and the parts must
  follow in that order) are in one article of the texts, and that article is one the piece names; a
  reference right beside the quotation that lists articles (`"…" in arts. 62 and 107`) says the words are in
  each of them. Only the first letter may change case (a quotation may open a sentence).

The app's own words quoted beside an article (its labels, English renderings) are not the law: they are listed
in OWN_WORDS, and an entry no longer found anywhere fails too, so the list cannot go stale.
"""
import ast
import io
import re
import tokenize
import tomllib
from pathlib import Path

import pytest

from checklists import load_catalog
from checklists.legal import normalize

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = ("checklists/sources", "checklists/history", "static/vendor", "tests/snapshots")
QUOTE = re.compile(r"«([^«»]+)»|“([^“”]+)”|\"([^\"]+)\"")
# "art. 201", "arts. 62 and 107", "arts. 133–137", "art. 18(3)", "art. 41 b)", "artículo 34", "articles 201-210"
REFERENCE = re.compile(
    r"\b(?:arts?\.|artículos?|articles?)\s*(\d+(?:\s*\([^)]*\)|\.\d+|\s[a-zñ]\))?"
    r"(?:\s*(?:,|;|y|and|o|or|a|to|–|-)\s*\d+(?:\s*\([^)]*\)|\.\d+|\s[a-zñ]\))?)*)", re.IGNORECASE)
ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
CODE = ("{", "`", "=", "//")  # a placeholder or code between quotes is not a quotation
RANGE = re.compile(r"\d\s*[–-]\s*\d")
BESIDE_AFTER, BESIDE_BEFORE = 12, 3  # characters between a quotation and the reference that names its articles

# The app's own words, quoted beside an article: labels, UI strings and English renderings, not the law's.
OWN_WORDS = {
    "Solicitar inspección",  # README: the fleet page's button
    "Práctica adoptada (instrumento extranjero)",  # the badge of an adopted foreign instrument
    "declared binding", "práctica adoptada",  # the badges of a foreign instrument's items
    "Práctica de la autoridad (deber de los vapores extendido a los buques a motor)",  # the badge of an extension
    "before departure",  # the action of a detainable failure
    "maximum of 0",  # INTERPRETATIONS: what art. 13's vessels are not
    "casco de acero, factor del hierro",  # the vessel page's formula for a steel hull
    "Control de embarcaciones menores",  # the small-craft check's title
    "needing a certificate",  # the dashboard's series
    "administration, fees, crew appointments",  # INTERPRETATIONS: the old, wrong reason it corrected
    "not applicable",  # the answer for an item that does not apply
    "Mis inspecciones",  # the inspector's agenda
    "Prefectura de Puerto de Asunción", "Ley N.º 928/1927, arts. 201 a 210", "Sin observaciones.",  # a certificate
}


def law() -> dict[str, str]:
    """Every article's normalised text, by "source art. number"."""
    return {f"{name} art. {number}": text for name, source in load_catalog().context.sources.items()
            for number, text in source.articles.items()}


def holds(article_text: str, quotation: str) -> bool:
    """Whether the article holds the quotation's parts in order (the first letter in either case)."""
    parts = [normalize(p) for p in ELLIPSIS.split(quotation) if p.strip(" .,;:")]
    if not parts:
        return False
    parts[0] = parts[0].strip()
    position = 0
    for index, part in enumerate(parts):
        variants = (part, part[:1].swapcase() + part[1:]) if index == 0 else (part,)
        found = [article_text.find(v, position) for v in variants]
        found = [f for f in found if f >= 0]
        if not found:
            return False
        position = min(found) + len(part)
    return True


def numbers(reference: str) -> set[str]:
    """The article numbers a reference names ("arts. 133–137" names five); its clauses are dropped."""
    bare = re.sub(r"\([^)]*\)|\.\d+|\s[a-zñ]\)", "", reference)
    named = set()
    for first, last in re.findall(r"(\d+)(?:\s*[–-]\s*(\d+))?", bare):
        if last and int(first) < int(last) <= int(first) + 50:
            named.update(str(n) for n in range(int(first), int(last) + 1))
        else:
            named.update({first, last} - {""})
    return named


def quotations(piece: str, cited: set[str] | None = None) -> list[tuple[str, set[str], set[str]]]:
    """(quotation, the article numbers the piece names, those a reference beside it lists) for each quotation of
    the law in one piece of prose.

    `cited` is the article of the checklist entry the piece belongs to, where there is one.
    """
    masked = QUOTE.sub(lambda m: " " * len(m.group(0)), piece)  # an article named inside a quotation is the law's
    references = [(m.start(), m.end(), numbers(m.group(1)), bool(RANGE.search(m.group(1))))
                  for m in REFERENCE.finditer(masked)]
    named = set().union(*(r[2] for r in references)) | (cited or set())
    if not named:
        return []
    found = []
    for match in QUOTE.finditer(piece):
        words = next(g for g in match.groups() if g is not None)
        if sum(1 for w in words.split() if re.search(r"[^\W\d_]", w)) < 2 or any(c in words for c in CODE):
            continue
        beside = [r for r in references if 0 <= r[0] - match.end() <= BESIDE_AFTER
                  or 0 <= match.start() - r[1] <= BESIDE_BEFORE]
        each = beside[0][2] if beside and len(beside[0][2]) > 1 and not beside[0][3] else set()
        found.append((words, named, each))
    return found


# ---------------------------------------------------------------------------------------------- the prose of a file
ARTICLE_COLUMN = ("article", "artículo", "art.", "arts.")


def markdown_pieces(text: str):
    """Paragraphs, list items (with their indented lines and tables) and top-level tables, outside fenced code.

    A table whose first column is headed "article" names each row's article in that column.
    """
    piece, fenced, previous, numbered = [], False, "", False
    for line in text.splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
            continue
        if fenced or not line.strip():
            previous = "" if not fenced else previous
            continue
        row = line.strip().startswith("|")
        cells = line.strip().strip("|").split("|")
        if row and not previous.strip().startswith("|"):  # a table's header
            numbered = cells[0].strip().lower() in ARTICLE_COLUMN
        elif row and numbered and "art" not in cells[0].lower():
            line = line.replace(cells[0], f" art. {cells[0].strip()} ", 1)
        indented = line.startswith(("  ", "\t"))
        table_goes_on = row and previous.startswith("|")
        starts = not indented and not table_goes_on and (not previous or re.match(r"^([-*#|]|\d+\.)\s?", line))
        if starts and piece:
            yield " ".join(piece)
            piece = []
        piece.append(line)
        previous = line
    if piece:
        yield " ".join(piece)


def toml_pieces(text: str):
    """Each table's string values (with the articles it cites or excludes, if any), and runs of comments."""
    def walk(value, cited=None):
        if isinstance(value, dict):
            article, articles = value.get("article"), value.get("articles")
            if isinstance(article, str) and article.isdigit():
                cited = {article}
            elif isinstance(articles, list) and all(isinstance(a, str) for a in articles):
                cited = {re.match(r"\d*", a).group(0) for a in articles} - {""}
            strings = [v for v in value.values() if isinstance(v, str)]
            if strings:
                yield " · ".join(strings), cited
            for child in value.values():
                if not isinstance(child, str):
                    yield from walk(child, cited)
        elif isinstance(value, list):
            for child in value:
                yield from walk(child, cited)
    yield from walk(tomllib.loads(text))
    run = []
    for line in [*text.splitlines(), ""]:
        if line.lstrip().startswith("#"):
            run.append(line.lstrip()[1:])
        elif run:
            yield " ".join(run), None
            run = []


def python_pieces(text: str):
    """Runs of comments, docstrings, and the messages passed to Msg() or N_()."""
    run = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            run.append(token.string.lstrip("#"))
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) and run:
            yield " ".join(run)
            run = []
    if run:
        yield " ".join(run)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node)
            if docstring:
                yield docstring
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("Msg", "N_") and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.args[0].value


MESSAGE = re.compile(r"""(?:\b_|gettext|N_)\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def template_pieces(text: str):
    """The _() messages, and each line of text outside tags and Jinja."""
    yield from (ast.literal_eval(m.group(1)) for m in MESSAGE.finditer(text))
    bare = re.sub(r"<[^>]*>", "\n", re.sub(r"\{[{%#].*?[}%#]\}", " ", text, flags=re.S))
    yield from bare.splitlines()


def script_pieces(text: str):
    """Comments and the messages passed to gettext() or N_()."""
    # A line comment ends at its line; a block comment may span lines.
    yield from (m.group(1) if m.group(1) is not None else m.group(2)
                for m in re.finditer(r"^\s*//([^\n]*)$|/\*(.*?)\*/", text, flags=re.M | re.S))
    yield from (m.group(1)[1:-1] for m in MESSAGE.finditer(text))


def catalogue_pieces(text: str):
    """Each msgid and msgstr, its lines joined."""
    for match in re.finditer(r'^(?:msgid|msgstr)\s+((?:"(?:[^"\\]|\\.)*"\s*)+)', text, flags=re.M):
        yield "".join(ast.literal_eval(s) for s in re.findall(r'"(?:[^"\\]|\\.)*"', match.group(1)))


READERS = {".md": markdown_pieces, ".toml": toml_pieces, ".py": python_pieces, ".html": template_pieces,
           ".js": script_pieces, ".mjs": script_pieces, ".po": catalogue_pieces}


def files() -> list[Path]:
    """Every file whose prose is read, in the repository's own folders."""
    return sorted(p for p in ROOT.rglob("*") if p.suffix in READERS and p.is_file()
                  and not any(part.startswith(".") or part in ("__pycache__", "node_modules", "instance")
                              for part in p.relative_to(ROOT).parts)
                  and not str(p.relative_to(ROOT)).startswith(SKIPPED))


def file_quotations(path: Path) -> list[tuple[str, set[str], set[str]]]:
    """Every quotation of the law in one file, with the articles it is given to."""
    found = []
    for piece in READERS[path.suffix](path.read_text(encoding="utf-8")):
        piece, cited = piece if isinstance(piece, tuple) else (piece, None)
        found.extend(quotations(piece, cited))
    return found


def misquotations(found: list[tuple[str, set[str], set[str]]], articles: dict[str, str]) -> list[str]:
    """Each quotation that is not the law's words in the articles given to it, described."""
    wrong = []
    for words, named, each in found:
        words = " ".join(words.split())
        if words in OWN_WORDS:
            continue
        anywhere = [key for key, text in articles.items() if holds(text, words)]
        holding = {key.rsplit(" ", 1)[1] for key in anywhere}
        if not anywhere:
            wrong.append(f"«{words}» is in no article of the texts")
        elif not holding & named:
            wrong.append(f"«{words}» is given to art. {', '.join(sorted(named, key=int))} but is in "
                         f"{'; '.join(anywhere)}")
        elif each - holding:
            wrong.append(f"«{words}» is said to be in art. {', '.join(sorted(each - holding, key=int))} too, but is "
                         f"in {'; '.join(anywhere)}")
    return wrong


@pytest.mark.parametrize("path", files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_quotation_is_the_law_in_its_article(path):
    wrong = misquotations(file_quotations(path), law())
    assert not wrong, f"misquoted in {path.relative_to(ROOT)}:\n" + "\n".join(wrong)


def test_the_own_words_list_is_current():
    """Each entry of OWN_WORDS is still quoted beside an article somewhere: a stale entry would hide nothing."""
    quoted = {" ".join(words.split()) for path in files() for words, _, _ in file_quotations(path)}
    assert OWN_WORDS <= quoted, sorted(OWN_WORDS - quoted)


@pytest.mark.parametrize("piece, expected", [
    # the misquotes of issue 20, as they were written: each is found and given to its article(s)
    ('art. 201 refers to "los casos especiales"', [("los casos especiales", {"201"}, set())]),
    ('Ley 928 itself says "vapor o a motor" in arts. 62 and 107', [("vapor o a motor", {"62", "107"}, {"62", "107"})]),
    ('(art. 214, "conflicto de intereses")', [("conflicto de intereses", {"214"}, set())]),
    # every article the piece names; a clause or a range names its article(s); one inside a quotation does not
    ('art. 62 «a vapor o a motor», art. 107 “a vapor o a nafta”',
     [("a vapor o a motor", {"62", "107"}, set()), ("a vapor o a nafta", {"62", "107"}, set())]),
    ('"cargada de kerosene" (arts. 133–135)', [("cargada de kerosene", {"133", "134", "135"}, set())]),
    ('Código art. 41(b) "alojamientos higiénicos"', [("alojamientos higiénicos", {"41"}, set())]),
    ('art. 18.3 "seis salvavidas por lo menos"', [("seis salvavidas por lo menos", {"18"}, set())]),
    ('art. 203 "de acuerdo con el artículo 201"', [("de acuerdo con el artículo 201", {"203"}, set())]),
    # one word, a placeholder, a number, or no article at all: not a quotation of the law
    ('the "vapor" setting (art. 141)', []),
    ('"{status}" (art. 5)', []),
    ('registration "py 1234" (art. 66)', []),
    ('the "declared binding" badge', []),
])
def test_how_a_quotation_is_recognised(piece, expected):
    assert quotations(piece) == expected


def test_markdown_pieces_keep_a_list_item_with_its_table():
    page = "- **Pilots (art. 1)**: the route:\n\n  | value | pilots |\n  | --- | --- |\n  | a | 1 |\n\nNext.\n"
    assert [p.split() for p in markdown_pieces(page)] == [
        "- **Pilots (art. 1)**: the route: | value | pilots | | --- | --- | | a | 1 |".split(), ["Next."]]


@pytest.mark.parametrize("piece, wrong", [
    ('art. 201: «los casos especiales»', "in no article"),
    ('art. 107 reads «vapor o a motor»', "is given to art. 107 but is in Ley 928/1927 art. 62"),
    ('Ley 928 says «vapor o a motor» in arts. 62 and 107', "is said to be in art. 107 too"),
    ('art. 214, «conflicto de intereses»', "in no article"),
    ('art. 195: «casco de hierro»', "in no article"),  # art. 195 prints "caso de hierro"
    ('art. 195: «caso de hierro»', None),
    ('art. 201: «sus cascos especiales»', None),
    ('art. 62 «a vapor o a motor», art. 107 «a vapor o a nafta»', None),
    ('art. 141: «Todos los vapores ... salvavidas»', None),  # parts in order, the first letter's case free
    ('art. 141: «salvavidas ... Todos los vapores»', "in no article"),  # parts out of order
])
def test_a_quotation_is_checked_against_its_article(piece, wrong):
    found = misquotations(quotations(piece), law())
    assert (found == []) if wrong is None else (len(found) == 1 and wrong in found[0]), found


def test_a_line_comment_in_a_script_ends_at_its_line():
    text = 'const a = 1;  \n  // art. 73 «solo de día»\nconst b = "code, not prose";\n/* two\nlines */\n//\n'
    assert list(script_pieces(text)) == [" art. 73 «solo de día»", " two\nlines ", ""]
