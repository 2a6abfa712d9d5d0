"""Load and validate the checklist data (TOML files and legal texts) into a Catalog."""

import decimal
import functools
import math
import numbers
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from . import history
from .legal import Source, clause_ref, normalize, read_source
from .rules import Rule, RuleError, compile_rule

DATA_DIR = Path(__file__).resolve().parent
KINDS = ("navegabilidad", "seguridad", "documentacion", "menores", "conducta")
ID_PREFIX = {"navegabilidad": "nav", "seguridad": "seg", "documentacion": "doc", "menores": "men", "conducta": "con"}
# "none": the small-craft check (menores, art. 210) leads to no certificate.
CERTIFICATES = ("navegabilidad", "seguridad", "both", "none")
PARTICULAR_TYPES = ("enum", "number", "integer", "bool")
ITEM_ID = re.compile(r"^[a-z]+(\.[a-z0-9_]+)+$")
ARTICLE = re.compile(r"^\d+$")
# An exclusion names a whole article ("41") or one of its clauses ("41(b)", "18(3)").
ARTICLE_OR_CLAUSE = re.compile(r"^(\d+)(?:\(([a-zñ]|\d+)\))?$")

ITEM_REQUIRED = ("id", "topic", "title_es", "title_en", "source", "article", "text",
                 "evidence_required", "detainable", "certificate")
ITEM_OPTIONAL = ("applies", "required", "maximum", "unit", "whole", "clauses", "restriction", "fine")
# A fine the law sets for an item's failure: the article (of the item's source) that sets it, quoted, and the
# amounts printed there (`max` when the article prints a range or two figures).
FINE_FIELDS = ("article", "text", "min", "max")
BOUNDS = ("required", "maximum")  # the observed count must be >= required or <= maximum
EXEMPTION_FIELDS = ("id", "when", "source", "article", "clauses", "text", "reason_es", "reason_en")
HEADER_REQUIRED = ("kind", "version", "title_es", "title_en", "covers", "items")
# `patrol`: the items a police patrol checks (issue 23), "all" or a list of ids; absent: not a patrol's list.
HEADER_OPTIONAL = ("exemptions", "patrol")
EXCLUSION_FIELDS = ("source", "articles", "reason_es", "reason_en")
EXCLUSION_LISTS = ("excluded", "pending")
RESTRICTION_FIELDS = ("code", "label_es", "label_en", "source", "article", "text")
RESTRICTION_CODE = re.compile(r"^[A-Z]{1,3}$")  # as it rides in the signed token (certificates/signing.py)
EXTENSION_FIELDS = ("law", "binding_setting", "subject")
# craft.toml: what a patrol takes an unregistered craft to be; the officer describes DESCRIBED, the file the rest.
CRAFT_FIELDS = ("types", "length_m", "particulars")
DESCRIBED = ("propulsion", "length_m")


class ChecklistError(Exception):
    """Invalid checklist data or input; the message names the file and the item."""

    def __init__(self, message: str, file: str | None = None, item_id: str | None = None):
        where = ": ".join(p for p in (file, f"item {item_id!r}" if item_id else None) if p)
        super().__init__(f"{where}: {message}" if where else message)
        self.file = file
        self.item_id = item_id


@dataclass(frozen=True)
class Particular:
    """A vessel particular that expressions may read."""

    name: str
    type: str
    values: tuple[str, ...]
    default: object
    label_es: str
    label_en: str


@dataclass(frozen=True)
class Setting:
    """A configurable interpretation of the law, with its default."""

    name: str
    default: bool | int | float
    label_es: str
    label_en: str
    articles: tuple[str, ...]


@dataclass(frozen=True)
class Term:
    """A defined term (e.g. "vapor"): a named expression usable in other expressions.

    A term that reads the law's word beyond its letter says what the word covers by itself (`law`), the
    setting that declares the extension binding and the word the law uses (`subject`); otherwise all None.
    """

    name: str
    rule: Rule
    label_es: str
    label_en: str
    law: Rule | None = None
    binding_setting: str | None = None
    subject: str | None = None


@dataclass(frozen=True)
class Restriction:
    """What an article orders in place of a detention (art. 73: no navigation at night), with its token code."""

    name: str
    code: str
    label_es: str
    label_en: str
    source: str
    article: str
    text: str


@dataclass(frozen=True)
class Context:
    """What every checklist shares: sources, particulars, settings, terms, topics and restrictions."""

    sources: Mapping[str, Source]
    particulars: Mapping[str, Particular]
    settings: Mapping[str, Setting]
    terms: Mapping[str, Term]
    topics: Mapping[str, Mapping[str, str]]
    restrictions: Mapping[str, Restriction]  # what an article orders instead of a detention, by name


@dataclass(frozen=True)
class Item:
    """One thing the inspector sees, counts, measures or tests, with its legal basis."""

    id: str
    topic: str
    title_es: str
    title_en: str
    source: str
    article: str
    clauses: tuple[str, ...]  # the article's clauses the item covers ("b"); empty when the article has none
    text: str
    applies: Rule
    required: Rule | None
    maximum: Rule | None
    unit_es: str | None
    unit_en: str | None
    evidence_required: bool
    detainable: bool
    certificate: str
    restriction: str | None = None  # a Restriction's name: its failure restricts instead of detaining
    whole: bool | None = None  # a quantity item's count is of whole units (True) or a measure (False); None: no bound
    fine: "Fine | None" = None  # the fine the law sets for a failure of the item; None: the law sets none


@dataclass(frozen=True)
class Fine:
    """A fine the law itself sets: its article (of the item's source), the words that set it, and the amounts
    printed there (`max` None: one fixed amount)."""

    source: str
    article: str
    text: str
    min: int
    max: int | None

    def as_dict(self) -> dict:
        """The fine as stored and served: {source, article, text, min, max}."""
        return {"source": self.source, "article": self.article, "text": self.text, "min": self.min, "max": self.max}


@dataclass(frozen=True)
class Exemption:
    """A condition under which a whole checklist does not apply, with its legal basis."""

    id: str
    when: Rule
    source: str
    article: str
    clauses: tuple[str, ...]
    text: str
    reason_es: str
    reason_en: str


@dataclass(frozen=True)
class Checklist:
    """One checklist kind: versioned items, coverage claims and exemptions."""

    kind: str
    version: str
    title_es: str
    title_en: str
    covers: Mapping[str, tuple[str, ...]]
    items: tuple[Item, ...]
    exemptions: tuple[Exemption, ...]
    context: Context
    patrol: tuple[str, ...] = ()  # ids of the items a patrol checks, in the list's order; empty: no patrol use


@dataclass(frozen=True)
class Exclusion:
    """An article or clause no item covers, and why: left out on purpose, or pending an item being written."""

    source: str
    article: str
    clause: str | None  # None: the whole article, every clause of it
    reason_es: str
    reason_en: str
    pending: bool


@dataclass(frozen=True)
class Craft:
    """An unregistered craft as a patrol takes it (craft.toml): the types offered, the length assumed until the
    officer gives one, and the particulars no register says."""

    types: tuple[str, ...]
    length_m: float
    particulars: Mapping[str, object]

    def particulars_of(self, propulsion: str, length_m: float) -> dict:
        """The particulars the checklists read for a craft the officer describes by type and length."""
        return {**self.particulars, "propulsion": propulsion, "length_m": float(length_m)}


@dataclass(frozen=True)
class Catalog:
    """All checklists, loaded and validated, and the articles and clauses left out of them."""

    checklists: Mapping[str, Checklist]
    context: Context
    exclusions: Mapping[tuple[str, str, str | None], Exclusion]  # (source, article, clause or None)
    history: Mapping[str, Mapping[str, dict]]  # kind -> version -> frozen snapshot (history/)
    craft: Craft  # what a patrol takes an unregistered craft to be (craft.toml)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The checklist kinds, in their fixed order."""
        return KINDS

    def get(self, kind: str) -> Checklist:
        """Return the checklist of that kind or raise ChecklistError."""
        try:
            return self.checklists[kind]
        except KeyError:
            raise ChecklistError(f"unknown checklist kind {kind!r}") from None

    @property
    def settings_defaults(self) -> dict:
        """Every setting's default value, by name."""
        return {name: s.default for name, s in self.context.settings.items()}


def load_catalog(directory: str | Path | None = None, frozen: bool = True) -> Catalog:
    """Load and validate every data file; the default directory's catalog is cached.

    With `frozen`, a checklist whose items differ from the snapshot of its version fails the load;
    `checklists freeze` loads without it, to write that snapshot.
    """
    if directory is None and frozen:
        return _default_catalog()
    return _load(Path(directory or DATA_DIR), frozen)


@functools.cache
def _default_catalog() -> Catalog:
    return _load(DATA_DIR, True)


def _load(directory: Path, frozen: bool) -> Catalog:
    sources = _load_sources(directory)
    particulars = _load_particulars(directory)
    settings = _load_settings(directory, set(particulars))
    _check_standing(sources, settings)
    topics = _load_topics(directory)
    terms = _load_terms(directory, particulars, settings)
    context = Context(*(MappingProxyType(m) for m in (sources, particulars, settings, terms, topics, {})))
    context = replace(context, restrictions=MappingProxyType(_load_restrictions(directory, context)))
    seen: dict[str, str] = {}
    checklists = {kind: _load_checklist(directory, kind, context, seen) for kind in KINDS}
    exclusions = _load_exclusions(directory, context, checklists)
    snapshots = {kind: MappingProxyType(_read_history(directory, kind)) for kind in KINDS}
    if frozen:
        for checklist in checklists.values():
            _check_frozen(checklist, snapshots[checklist.kind])
    return Catalog(MappingProxyType(checklists), context, MappingProxyType(exclusions), MappingProxyType(snapshots),
                   _load_craft(directory, particulars))


def _read_history(directory: Path, kind: str) -> dict[str, dict]:
    try:
        return history.read_snapshots(directory, kind)
    except (OSError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        raise ChecklistError(f"history: {exc}", f"{history.HISTORY}/{kind}") from None


def _check_frozen(checklist: Checklist, snapshots: Mapping[str, dict]) -> None:
    """An item changed without a version bump fails: a pinned version must keep meaning what it asked."""
    frozen = snapshots.get(checklist.version)
    if frozen is None:
        return  # a new version, not yet frozen: `checklists check` says so
    diff = history.diff_snapshots(frozen, history.snapshot(checklist))
    if not history.is_empty(diff):
        ids = [i["id"] for i in (*diff["added"], *diff["removed"], *diff["changed"])]
        raise ChecklistError(
            f"version {checklist.version} differs from its frozen snapshot "
            f"{history.HISTORY}/{checklist.kind}/{checklist.version}.json (items {', '.join(ids)}): bump the "
            f"version and run `flask --app app checklists freeze`", f"{checklist.kind}.toml")


def _read_toml(path: Path) -> dict:
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ChecklistError(f"cannot read file ({exc.strerror})", path.name) from None
    try:
        return tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise ChecklistError(f"TOML syntax error: {exc}", path.name, _item_near_error(raw, str(exc))) from None


def _item_near_error(raw: str, message: str) -> str | None:
    """Best effort: the id of the [[items]] entry around a TOML syntax error."""
    match = re.search(r"at line (\d+)", message)
    if not match:
        return None
    lines = raw.splitlines()[: int(match.group(1))]
    for line in reversed(lines):
        found = re.match(r'\s*id\s*=\s*["\']([^"\']+)["\']', line)
        if found:
            return found.group(1)
        if line.strip().startswith("[["):
            break
    return None


def _text(table: Mapping, key: str, file: str, item: str | None = None) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ChecklistError(f"{key!r} must be a non-empty string", file, item)
    return value


def check_particular(spec: Particular, value):
    """Return the value in canonical form, or raise ChecklistError if it does not fit the type."""
    if spec.type == "bool":
        if not isinstance(value, bool):
            raise ChecklistError(f"particular {spec.name!r} must be true or false, got {value!r}")
        return value
    if spec.type == "enum":
        if value not in spec.values:
            raise ChecklistError(f"particular {spec.name!r} must be one of {spec.values}, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise ChecklistError(f"particular {spec.name!r} must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ChecklistError(f"particular {spec.name!r} must be a finite number >= 0, got {value!r}")
    if spec.type == "integer":
        if value != int(value):
            raise ChecklistError(f"particular {spec.name!r} must be a whole number, got {value!r}")
        return int(value)
    return float(value)  # Decimal from the database becomes float


def _load_sources(directory: Path) -> dict[str, Source]:
    file = "sources.toml"
    data = _read_toml(directory / file)
    sources = {}
    for name, entry in data.items():
        files = entry.get("files")
        if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
            raise ChecklistError(f"source {name!r}: 'files' must be a list of file names", file)
        foreign, binding = entry.get("foreign"), entry.get("binding_setting")
        if not isinstance(foreign, bool):
            raise ChecklistError(f"source {name!r}: 'foreign' must be true or false (the instrument's standing)", file)
        if foreign != (binding is not None):
            raise ChecklistError(f"source {name!r}: a foreign instrument, and only a foreign one, names the "
                                 "'binding_setting' that declares it binding", file)
        try:
            source = read_source(name, _text(entry, "short_es", file), _text(entry, "short_en", file),
                                 directory / "sources", files)
        except (OSError, ValueError) as exc:
            raise ChecklistError(f"source {name!r}: {exc}", file) from None
        sources[name] = replace(source, foreign=foreign, binding_setting=binding)
    return sources


def _check_standing(sources: Mapping[str, Source], settings: Mapping[str, Setting]) -> None:
    """A foreign instrument names an existing boolean setting that declares it binding."""
    for name, source in sources.items():
        if source.foreign:
            _check_binding(settings, source.binding_setting, f"source {name!r}", "sources.toml")


def _check_binding(settings: Mapping[str, Setting], name, owner: str, file: str) -> None:
    """A practice (a foreign instrument, a term's extension) names the boolean setting that declares it binding."""
    setting = settings.get(name) if isinstance(name, str) else None
    if setting is None or not isinstance(setting.default, bool):
        raise ChecklistError(f"{owner}: binding_setting {name!r} is not a boolean setting of settings.toml", file)


def _load_particulars(directory: Path) -> dict[str, Particular]:
    file = "particulars.toml"
    particulars = {}
    for name, entry in _read_toml(directory / file).items():
        kind = entry.get("type")
        if kind not in PARTICULAR_TYPES:
            raise ChecklistError(f"particular {name!r}: type must be one of {PARTICULAR_TYPES}", file)
        values = tuple(entry.get("values", ()))
        if (kind == "enum") != bool(values):
            raise ChecklistError(f"particular {name!r}: 'values' is required for enums only", file)
        particular = Particular(name, kind, values, entry.get("default"),
                                _text(entry, "label_es", file), _text(entry, "label_en", file))
        if particular.default is not None:
            try:
                check_particular(particular, particular.default)
            except ChecklistError as exc:
                raise ChecklistError(f"default: {exc}", file) from None
        particulars[name] = particular
    return particulars


def _load_craft(directory: Path, particulars: Mapping[str, Particular]) -> Craft:
    """craft.toml: known particulars with fitting values, the described ones left to the officer, and every
    particular without a default given (so a described craft's lists can always be built)."""
    file = "craft.toml"
    data = _read_toml(directory / file)
    unknown = set(data) - set(CRAFT_FIELDS)
    if unknown:
        raise ChecklistError(f"unknown fields {sorted(unknown)}", file)
    types = data.get("types")
    if (not isinstance(types, list) or not types or len(set(types)) != len(types)
            or any(t not in particulars["propulsion"].values for t in types)):
        raise ChecklistError(f"'types' must be distinct propulsions of {particulars['propulsion'].values}", file)
    values = data.get("particulars")
    if not isinstance(values, dict):
        raise ChecklistError("'particulars' must be a table", file)
    given = {}
    for name, value in {**values, "length_m": data.get("length_m")}.items():
        spec = particulars.get(name)
        if spec is None:
            raise ChecklistError(f"unknown particular {name!r}", file)
        if name in DESCRIBED and name in values:
            raise ChecklistError(f"the officer describes {name!r}: it is not the file's to set", file)
        try:
            given[name] = check_particular(spec, value)
        except ChecklistError as exc:
            raise ChecklistError(str(exc), file) from None
    missing = [n for n, p in particulars.items() if p.default is None and n not in given and n not in DESCRIBED]
    if missing:
        raise ChecklistError(f"give the particulars no register says for a craft: {missing}", file)
    length = given.pop("length_m")
    if length <= 0:
        raise ChecklistError("'length_m' must be above 0", file)
    return Craft(tuple(types), length, MappingProxyType(given))


def _load_settings(directory: Path, taken: set[str]) -> dict[str, Setting]:
    file = "settings.toml"
    settings = {}
    for name, entry in _read_toml(directory / file).items():
        default = entry.get("default")
        if not isinstance(default, (bool, int, float)):
            raise ChecklistError(f"setting {name!r}: default must be a boolean or a number", file)
        if name in taken:
            raise ChecklistError(f"setting {name!r} has the name of a particular", file)
        articles = tuple(entry.get("articles", ()))
        if not articles:
            raise ChecklistError(f"setting {name!r}: list the 'articles' it interprets", file)
        settings[name] = Setting(name, default, _text(entry, "label_es", file),
                                 _text(entry, "label_en", file), articles)
    return settings


def _load_topics(directory: Path) -> dict[str, dict[str, str]]:
    file = "topics.toml"
    topics = {}
    for topic, entry in _read_toml(directory / file).items():
        topics[topic] = {"es": _text(entry, "es", file), "en": _text(entry, "en", file)}
    return topics


def _load_terms(directory: Path, particulars: Mapping, settings: Mapping) -> dict[str, Term]:
    file = "terms.toml"
    terms: dict[str, Term] = {}
    for name, entry in _read_toml(directory / file).items():
        if name in particulars or name in settings:
            raise ChecklistError(f"term {name!r} has the name of a particular or setting", file)
        allowed = set(particulars) | set(settings) | set(terms)  # earlier terms only: no cycles
        rule = _compile(_text(entry, "expr", file), allowed, particulars, file, None, f"term {name!r}")
        extension = _load_extension(entry, name, allowed, particulars, settings, file)
        terms[name] = Term(name, rule, _text(entry, "label_es", file), _text(entry, "label_en", file), *extension)
    return terms


def _load_extension(entry, name, allowed, particulars, settings, file) -> tuple:
    """(law, binding_setting, subject) of a term that extends the law's word, or three Nones."""
    given = [field for field in EXTENSION_FIELDS if field in entry]
    if not given:
        return None, None, None
    if len(given) != len(EXTENSION_FIELDS):
        raise ChecklistError(f"term {name!r}: a term that extends the law's word names {list(EXTENSION_FIELDS)}: "
                             "what the word covers by itself, the setting that declares the extension binding and "
                             "the word the law uses", file)
    law = _compile(_text(entry, "law", file), allowed, particulars, file, None, f"term {name!r} law")
    _check_binding(settings, entry["binding_setting"], f"term {name!r}", file)
    return law, entry["binding_setting"], normalize(_text(entry, "subject", file)).lower()


def _load_restrictions(directory: Path, context: Context) -> dict[str, Restriction]:
    """restrictions.toml: each restriction quotes the article that orders it and has a distinct token code."""
    file = "restrictions.toml"
    restrictions: dict[str, Restriction] = {}
    for name, entry in _read_toml(directory / file).items():
        unknown = set(entry) - set(RESTRICTION_FIELDS)
        if unknown:
            raise ChecklistError(f"restriction {name!r}: unknown fields {sorted(unknown)}", file)
        code = entry.get("code")
        if not isinstance(code, str) or not RESTRICTION_CODE.match(code):
            raise ChecklistError(f"restriction {name!r}: code must be one to three capital letters", file)
        if any(r.code == code for r in restrictions.values()):
            raise ChecklistError(f"restriction {name!r}: code {code!r} is taken", file)
        source, article, _, text = _check_citation(entry, context, file, name)
        restrictions[name] = Restriction(name, code, _text(entry, "label_es", file), _text(entry, "label_en", file),
                                         source, article, text)
    return restrictions


def _compile(source, allowed, particulars, file, item, field) -> Rule:
    if isinstance(source, bool):
        source = "true" if source else "false"
    elif isinstance(source, (int, float)):
        source = str(source)
    try:
        rule = compile_rule(source, allowed)
    except RuleError as exc:
        raise ChecklistError(f"{field}: {exc}", file, item) from None
    for name, literal in rule.strings:  # catch typos such as propulsion == "stem"
        spec = particulars.get(name)
        if spec is None or spec.type != "enum":
            raise ChecklistError(f"{field}: {name!r} is compared with the string {literal!r}", file, item)
        if literal not in spec.values:
            raise ChecklistError(f"{field}: {literal!r} is not a value of {name!r} {spec.values}", file, item)
    return rule


def _check_citation(entry: Mapping, context: Context, file: str, item: str) -> tuple[str, str, tuple[str, ...], str]:
    """Source, article, clauses and quote of an item or exemption; the quote must be where the citation says.

    An article divided into clauses is covered clause by clause: the citation names the clauses it covers
    (`clauses = ["b"]`), and the quote lies in one of them or in the article's opening words.
    """
    source_name = _text(entry, "source", file, item)
    source = context.sources.get(source_name)
    if source is None:
        raise ChecklistError(f"unknown source {source_name!r}", file, item)
    article = entry.get("article")
    if not isinstance(article, str) or not ARTICLE.match(article):
        raise ChecklistError("'article' must be an article number as a string, e.g. \"143\"", file, item)
    if article not in source.parts:
        raise ChecklistError(f"{source_name} has no art. {article}", file, item)
    text = _text(entry, "text", file, item)
    if not source.contains(text):
        raise ChecklistError(f"text not found in {source_name}: {text[:60]!r}", file, item)
    if not source.article_contains(article, text):
        raise ChecklistError(f"text is not in art. {article} of {source_name}", file, item)
    clauses = _check_clauses(entry, source.parts[article], source_name, article, text, file, item)
    return source_name, article, clauses, text


def _check_clauses(entry, part, source_name, article, text, file, item) -> tuple[str, ...]:
    clauses = entry.get("clauses")
    if not part.clauses:
        if clauses is not None:
            raise ChecklistError(f"{source_name} art. {article} has no clauses; remove 'clauses'", file, item)
        return ()
    labels = ", ".join(clause_ref(article, c) for c in part.clauses)
    if not isinstance(clauses, list) or not clauses or not all(isinstance(c, str) for c in clauses):
        raise ChecklistError(f"{source_name} art. {article} is divided into clauses ({labels}): name those the "
                             "item covers, e.g. clauses = [\"b\"]", file, item)
    unknown = [c for c in clauses if c not in part.clauses]
    if unknown or len(set(clauses)) != len(clauses):
        raise ChecklistError(f"clauses {clauses} must be distinct clauses of art. {article} ({labels})", file, item)
    if not part.holds(text, clauses):
        holding = part.clauses_holding(text)
        if not holding:
            raise ChecklistError(f"text runs across the clauses of art. {article}: quote within one clause or "
                                 "the article's opening words", file, item)
        found = ", ".join(clause_ref(article, c) for c in holding)
        raise ChecklistError(f"text is in art. {found}, which 'clauses' does not name", file, item)
    return tuple(sorted(clauses, key=list(part.clauses).index))


def _load_checklist(directory: Path, kind: str, context: Context, seen: dict[str, str]) -> Checklist:
    file = f"{kind}.toml"
    data = _read_toml(directory / file)
    for key in HEADER_REQUIRED:
        if key not in data:
            raise ChecklistError(f"missing {key!r}", file)
    unknown = set(data) - set(HEADER_REQUIRED) - set(HEADER_OPTIONAL)
    if unknown:
        raise ChecklistError(f"unknown keys {sorted(unknown)}", file)
    if data["kind"] != kind:
        raise ChecklistError(f"kind {data['kind']!r} does not match the file name", file)
    allowed = set(context.particulars) | set(context.settings) | set(context.terms)
    items = tuple(_load_item(entry, kind, context, allowed, file, seen) for entry in data["items"])
    exemptions = tuple(_load_exemption(e, context, allowed, file, seen) for e in data.get("exemptions", ()))
    covers = _check_covers(data["covers"], items, context, file)
    return Checklist(kind, _text(data, "version", file), _text(data, "title_es", file),
                     _text(data, "title_en", file), covers, items, exemptions, context,
                     _check_patrol(data.get("patrol"), items, file))


def _check_patrol(patrol, items, file) -> tuple[str, ...]:
    """The ids a patrol checks: "all", or a list of distinct ids of the file's items (kept in the list's order)."""
    ids = [item.id for item in items]
    if patrol is None:
        return ()
    if patrol == "all":
        return tuple(ids)
    if not isinstance(patrol, list) or not patrol or not all(isinstance(i, str) for i in patrol):
        raise ChecklistError("'patrol' must be \"all\" or a list of item ids", file)
    unknown = [i for i in patrol if i not in ids]
    if unknown or len(set(patrol)) != len(patrol):
        raise ChecklistError(f"patrol: {unknown or patrol} must be distinct ids of this file's items", file)
    return tuple(i for i in ids if i in patrol)


def _claim_id(entry: Mapping, kind: str, file: str, seen: dict[str, str]) -> str:
    item_id = entry.get("id")
    if not isinstance(item_id, str) or not ITEM_ID.match(item_id):
        raise ChecklistError(f"bad or missing id {item_id!r} (expected e.g. 'seg.lifebuoys.total')", file)
    if not item_id.startswith(ID_PREFIX[kind] + "."):
        raise ChecklistError(f"ids in {file} start with {ID_PREFIX[kind]!r}.", file, item_id)
    if item_id in seen:
        raise ChecklistError(f"duplicate id (already used in {seen[item_id]})", file, item_id)
    seen[item_id] = file
    return item_id


def _load_item(entry, kind, context, allowed, file, seen) -> Item:
    item_id = _claim_id(entry, kind, file, seen)
    for key in ITEM_REQUIRED:
        if key not in entry:
            raise ChecklistError(f"missing field {key!r}", file, item_id)
    unknown = set(entry) - set(ITEM_REQUIRED) - set(ITEM_OPTIONAL)
    if unknown:
        raise ChecklistError(f"unknown fields {sorted(unknown)}", file, item_id)
    if entry["topic"] not in context.topics:
        raise ChecklistError(f"unknown topic {entry['topic']!r}", file, item_id)
    source, article, clauses, text = _check_citation(entry, context, file, item_id)
    applies = _compile(entry.get("applies", "true"), allowed, context.particulars, file, item_id, "applies")
    bounds = {field: _load_bound(entry, field, allowed, context, file, item_id) for field in BOUNDS}
    given = [field for field, rule in bounds.items() if rule is not None]
    unit_es = unit_en = None
    if len(given) > 1:
        raise ChecklistError("an item has 'required' or 'maximum', not both (one duty, one bound)", file, item_id)
    if given:
        unit = entry.get("unit")
        if not isinstance(unit, dict):
            raise ChecklistError("a quantity item needs unit = {es = ..., en = ...}", file, item_id)
        unit_es, unit_en = _text(unit, "es", file, item_id), _text(unit, "en", file, item_id)
    elif "unit" in entry:
        raise ChecklistError("'unit' without 'required' or 'maximum'", file, item_id)
    whole = entry.get("whole", True) if given else None  # lifebuoys are counted; kg of flammables are weighed
    if not given and "whole" in entry:
        raise ChecklistError("'whole' without 'required' or 'maximum'", file, item_id)
    if given and not isinstance(whole, bool):
        raise ChecklistError("'whole' must be true or false", file, item_id)
    for flag in ("evidence_required", "detainable"):
        if not isinstance(entry[flag], bool):
            raise ChecklistError(f"{flag!r} must be true or false", file, item_id)
    if entry["certificate"] not in CERTIFICATES:
        raise ChecklistError(f"certificate must be one of {CERTIFICATES}", file, item_id)
    restriction = _check_restriction(entry, context, source, article, file, item_id)
    _check_subject(applies, context, source, article, text, file, item_id)
    fine = _check_fine(entry.get("fine"), context, source, file, item_id)
    return Item(item_id, entry["topic"], _text(entry, "title_es", file, item_id),
                _text(entry, "title_en", file, item_id), source, article, clauses, text, applies,
                bounds["required"], bounds["maximum"], unit_es, unit_en, entry["evidence_required"], entry["detainable"],
                entry["certificate"], restriction, whole, fine)


def _printed(amount: int, text: str) -> bool:
    """Whether the quote prints the amount ("1.000" or "1000"), as a whole number, not inside another."""
    forms = {str(amount), f"{amount:,}".replace(",", ".")}
    return any(re.search(rf"(?<![\d.]){re.escape(form)}(?![\d]|\.\d)", text) for form in forms)


def _check_fine(fine, context, source, file, item_id) -> Fine | None:
    """An item's fine quotes the article (of the item's source) that sets it, and its amounts are printed there."""
    if fine is None:
        return None
    if not isinstance(fine, dict) or set(fine) - set(FINE_FIELDS):
        raise ChecklistError(f"fine must be a table of {list(FINE_FIELDS)}", file, item_id)
    article, text = fine.get("article"), _text(fine, "text", file, item_id)
    if not isinstance(article, str) or not ARTICLE.match(article) or article not in context.sources[source].parts:
        raise ChecklistError(f"fine: {source} has no art. {article!r}", file, item_id)
    if not context.sources[source].article_contains(article, text):
        raise ChecklistError(f"fine: text is not in art. {article} of {source}", file, item_id)
    low, high = fine.get("min"), fine.get("max")
    for value in (low, high):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise ChecklistError(f"fine: amounts are whole numbers > 0, got {value!r}", file, item_id)
    if low is None or (high is not None and high <= low):
        raise ChecklistError("fine: needs 'min', and a 'max' above it when the article prints two figures",
                             file, item_id)
    missing = [v for v in (low, high) if v is not None and not _printed(v, normalize(text))]
    if missing:
        raise ChecklistError(f"fine: the quote does not print {missing}: the law's figures only", file, item_id)
    return Fine(source, article, normalize(text), low, high)


def _check_restriction(entry, context, source, article, file, item_id) -> str | None:
    """An item's restriction exists, is the one its own article orders, and replaces the detention."""
    name = entry.get("restriction")
    if name is None:
        return None
    restriction = context.restrictions.get(name) if isinstance(name, str) else None
    if restriction is None:
        raise ChecklistError(f"unknown restriction {name!r} (restrictions.toml)", file, item_id)
    if (restriction.source, restriction.article) != (source, article):
        raise ChecklistError(f"restriction {name!r} is ordered by {restriction.source} art. {restriction.article}, "
                             f"not by the item's article", file, item_id)
    if entry["detainable"]:
        raise ChecklistError(f"an item that restricts ({name!r}) does not detain: set detainable = false", file, item_id)
    return name


def _check_subject(applies, context, source, article, text, file, item_id) -> None:
    """An item applying through a term that extends the law's word quotes that word where its article names it
    (an item that applies where the term does not, `not vapor`, need not)."""
    words = normalize(text).lower()
    for name in sorted(applies.affirmed):
        term = context.terms.get(name)
        if term is None or term.subject is None:
            continue
        if term.subject in context.sources[source].parts[article].text.lower() and term.subject not in words:
            raise ChecklistError(f"the item applies through {name!r}, which extends the law's word, and its article "
                                 f"names {term.subject!r}: quote from where the sentence names it, so the inspector "
                                 "sees whom the law binds", file, item_id)


def check_count(value, field: str, file: str, item_id: str) -> int:
    """A bound's value as a whole number >= 0 (the count an inspector observes), or ChecklistError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
        raise ChecklistError(f"{field} must be a whole number >= 0, got {value!r}", file, item_id)
    return int(value)


def _load_bound(entry, field, allowed, context, file, item_id) -> Rule | None:
    """An item's `required` or `maximum`; a constant one is checked now, one over particulars per vessel."""
    if field not in entry:
        return None
    rule = _compile(entry[field], allowed, context.particulars, file, item_id, field)
    if not rule.names:
        try:
            check_count(rule.evaluate({}), field, file, item_id)
        except RuleError as exc:
            raise ChecklistError(f"{field}: {exc}", file, item_id) from None
    return rule


def _load_exemption(entry, context, allowed, file, seen) -> Exemption:
    ex_id = entry.get("id")
    if not isinstance(ex_id, str) or not ex_id:
        raise ChecklistError("exemption without id", file)
    if ex_id in seen:
        raise ChecklistError(f"duplicate id (already used in {seen[ex_id]})", file, ex_id)
    seen[ex_id] = file
    unknown = set(entry) - set(EXEMPTION_FIELDS)
    if unknown:
        raise ChecklistError(f"unknown fields {sorted(unknown)}", file, ex_id)
    when = _compile(_text(entry, "when", file, ex_id), allowed, context.particulars, file, ex_id, "when")
    source, article, clauses, text = _check_citation(entry, context, file, ex_id)
    return Exemption(ex_id, when, source, article, clauses, text,
                     _text(entry, "reason_es", file, ex_id), _text(entry, "reason_en", file, ex_id))


def _check_covers(covers, items, context, file) -> Mapping[str, tuple[str, ...]]:
    if not isinstance(covers, dict):
        raise ChecklistError("'covers' must be a table of source = [articles]", file)
    cited: dict[tuple[str, str], str] = {}
    for item in items:
        cited.setdefault((item.source, item.article), item.id)
    result = {}
    for source, articles in covers.items():
        if source not in context.sources:
            raise ChecklistError(f"covers: unknown source {source!r}", file)
        if not isinstance(articles, list) or not all(isinstance(a, str) for a in articles):
            raise ChecklistError(f"covers: {source!r} must list article numbers as strings", file)
        for article in articles:
            if (source, article) not in cited:
                raise ChecklistError(f"covers {source} art. {article} but no item cites it", file)
        result[source] = tuple(sorted(set(articles), key=int))
    for (source, article), item_id in cited.items():
        if article not in result.get(source, ()):
            raise ChecklistError(f"cites {source} art. {article}, which 'covers' does not list", file, item_id)
    return MappingProxyType(result)


def citations(checklist: Checklist) -> list[tuple[str, str, str | None, str]]:
    """(source, article, clause, id) of every clause each item and exemption covers (clause None: a whole
    article that has no clauses)."""
    return [(entry.source, entry.article, clause, entry.id) for entry in (*checklist.items, *checklist.exemptions)
            for clause in (entry.clauses or (None,))]


def _load_exclusions(directory: Path, context: Context, checklists: Mapping[str, Checklist]):
    """exclusions.toml: each article or clause named exists in its source, has reasons, and no item covers it.

    An article listed whole ("41") excludes every clause of it; one clause is listed as "41(b)".
    """
    file = "exclusions.toml"
    data = _read_toml(directory / file)
    unknown = set(data) - set(EXCLUSION_LISTS)
    if unknown:
        raise ChecklistError(f"unknown keys {sorted(unknown)} (use {list(EXCLUSION_LISTS)})", file)
    covered: dict[tuple[str, str], str] = {}  # (source, "141") or (source, "41(b)") -> first item covering it
    cited: dict[tuple[str, str], str] = {}  # (source, article) -> first item citing it, whatever the clause
    for checklist in checklists.values():
        for source, article, clause, item_id in citations(checklist):
            covered.setdefault((source, clause_ref(article, clause)), item_id)
            cited.setdefault((source, article), item_id)
    exclusions: dict[tuple[str, str, str | None], Exclusion] = {}
    for key in EXCLUSION_LISTS:
        entries = data.get(key, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ChecklistError(f"{key!r} must be a list of tables ([[{key}]])", file)
        for entry in entries:
            extra = set(entry) - set(EXCLUSION_FIELDS)
            if extra:
                raise ChecklistError(f"{key}: unknown fields {sorted(extra)}", file)
            source_name = _text(entry, "source", file)
            source = context.sources.get(source_name)
            if source is None:
                raise ChecklistError(f"{key}: unknown source {source_name!r}", file)
            articles = entry.get("articles")
            if not isinstance(articles, list) or not articles or not all(
                    isinstance(a, str) and ARTICLE_OR_CLAUSE.match(a) for a in articles):
                raise ChecklistError(f"{key}: {source_name}: 'articles' must list article numbers as strings, or "
                                     "clauses such as \"41(b)\"", file)
            where = f"{key}: {source_name} art. {articles[0]}"
            for field in ("reason_es", "reason_en"):
                if not isinstance(entry.get(field), str) or not entry[field].strip():
                    raise ChecklistError(f"{where}: needs a non-empty {field!r}", file)
            for reference in articles:
                article, clause = ARTICLE_OR_CLAUSE.match(reference).groups()
                _check_excluded(source, key, source_name, article, clause, (covered, cited), exclusions, file)
                exclusions[source_name, article, clause] = Exclusion(
                    source_name, article, clause, entry["reason_es"], entry["reason_en"], key == "pending")
    return exclusions


def _check_excluded(source, key, source_name, article, clause, citing, exclusions, file) -> None:
    """An excluded article or clause exists, is not covered, and is listed once (whole or clause by clause)."""
    covered, cited = citing
    reference = clause_ref(article, clause)
    if article not in source.parts:
        raise ChecklistError(f"{key}: {source_name} has no art. {article}", file)
    if clause is not None and clause not in source.parts[article].clauses:
        raise ChecklistError(f"{key}: {source_name} art. {article} has no clause {reference}", file)
    if (source_name, reference) in covered:
        raise ChecklistError(f"{key}: {source_name} art. {reference} is covered by item "
                             f"{covered[source_name, reference]!r}; remove it from {file}", file)
    if clause is None and (source_name, article) in cited:
        raise ChecklistError(f"{key}: {source_name} art. {article} has a clause covered by item "
                             f"{cited[source_name, article]!r}; list the other clauses one by one", file)
    taken = (source_name, article, clause) in exclusions or (source_name, article, None) in exclusions or (
        clause is None and any(k[:2] == (source_name, article) for k in exclusions))
    if taken:
        raise ChecklistError(f"{key}: {source_name} art. {reference} is listed twice", file)
