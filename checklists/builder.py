"""Build a vessel's checklist (the api.md shape) and the catalog's coverage report."""

import hashlib
import json
from collections.abc import Mapping

from . import history
from .legal import clause_ref
from .loader import (BOUNDS, Catalog, Checklist, ChecklistError, Context, Item, check_count, check_particular,
                     citations)
from .rules import RuleError

LANGS = ("es", "en")
STATUS_ES = {"covered": "CUBIERTO", "excluded": "EXCLUIDO", "pending": "PENDIENTE",
             "uncovered": "SIN CUBRIR"}
EXCERPT = 160  # characters of a clause's words shown beside it on the coverage page
STANDINGS = ("law", "foreign", "extension")  # the law's own, or the authority's practice it rests on
CONSEQUENCES = ("detention", "restriction", "observation")  # what an item's failure brings about


class _Env(dict):
    """Particulars and settings by name; defined terms are computed on first use (`literal`: a term that extends
    the law's word is read as the law's word alone)."""

    def __init__(self, values: Mapping, terms: Mapping, literal: bool = False):
        super().__init__(values)
        self._terms = terms
        self._literal = literal

    def __missing__(self, name):
        term = self._terms.get(name)
        if term is None:
            raise KeyError(name)
        value = (term.law if self._literal and term.law is not None else term.rule).evaluate(self)
        self[name] = value
        return value


def resolve_settings(context: Context, settings: Mapping | None) -> dict:
    """Defaults overlaid with the given settings; unknown names and wrong types are errors."""
    resolved = {name: s.default for name, s in context.settings.items()}
    for name, value in (settings or {}).items():
        spec = context.settings.get(name)
        if spec is None:
            raise ChecklistError(f"unknown setting {name!r}")
        if isinstance(spec.default, bool) != isinstance(value, bool) or not isinstance(value, (bool, int, float)):
            raise ChecklistError(f"setting {name!r} must be like its default {spec.default!r}, got {value!r}")
        resolved[name] = value
    return resolved


def resolve_particulars(context: Context, particulars: Mapping) -> dict:
    """Known particulars, type-checked, with declared defaults for missing or null ones."""
    resolved = {}
    for name, spec in context.particulars.items():
        value = particulars.get(name)
        if value is None:
            value = spec.default
        if value is not None:
            resolved[name] = check_particular(spec, value)
    return resolved


def _evaluate(rule, env, kind: str, item_id: str, field: str):
    try:
        return rule.evaluate(env)
    except RuleError as exc:
        raise ChecklistError(f"{field}: {exc}", f"{kind}.toml", item_id) from None


def _quantity(item: Item, field: str, env, kind: str) -> int | None:
    """The item's `required` or `maximum` count for this vessel, or None when it sets none."""
    rule = getattr(item, field)
    if rule is None:
        return None
    return check_count(_evaluate(rule, env, kind, item.id, field), field, f"{kind}.toml", item.id)


def _applies(rule, env, kind: str, item_id: str, field: str) -> bool:
    value = _evaluate(rule, env, kind, item_id, field)
    if not isinstance(value, bool):
        raise ChecklistError(f"{field} must be true or false, got {value!r}", f"{kind}.toml", item_id)
    return value


def _reached_particulars(context: Context, names, literal: bool = False) -> frozenset[str]:
    """The particulars `names` read, through defined terms (and, with `literal`, through what each term's law
    covers by itself, as _standing reads it)."""
    seen, found, pending = set(), set(), list(names)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        term = context.terms.get(name)
        if term is not None:
            pending.extend(term.rule.names)
            if literal and term.law is not None:
                pending.extend(term.law.names)
        elif name in context.particulars:
            found.add(name)
    return frozenset(found)


def exemption_particulars(checklist: Checklist) -> frozenset[str]:
    """The particulars the checklist's exemptions read, through defined terms: all that decides "exempt"."""
    return _reached_particulars(checklist.context, [name for e in checklist.exemptions for name in e.when.names])


def patrol_particulars(checklist: Checklist) -> frozenset[str]:
    """Every particular build_patrol_checklist reads: its exemptions', and its patrol items' applicability,
    bounds and standing. Vessels alike in these get the same patrol list (the phone's are built once for them)."""
    patrol = [item for item in checklist.items if item.id in checklist.patrol]
    names = [name for e in checklist.exemptions for name in e.when.names]
    names += [name for item in patrol for rule in (item.applies, item.required, item.maximum) if rule
              for name in rule.names]
    return _reached_particulars(checklist.context, names, literal=True)


def exemption_basis(checklist: Checklist, settings: Mapping | None = None) -> str:
    """A digest of all that decides "exempt": the exemptions' rules, the terms they reach, the defaults of the
    particulars they read, and the settings. Equal digests decide every vessel alike (a stored decision holds)."""
    context, reached, pending = checklist.context, {}, [n for e in checklist.exemptions for n in e.when.names]
    while pending:
        name = pending.pop()
        if name not in reached and name in context.terms:
            reached[name] = context.terms[name].rule.source
            pending.extend(context.terms[name].rule.names)
    basis = {"kind": checklist.kind, "when": [e.when.source for e in checklist.exemptions], "terms": reached,
             "defaults": {name: repr(context.particulars[name].default) for name in exemption_particulars(checklist)},
             "settings": resolve_settings(context, settings)}
    return hashlib.sha256(json.dumps(basis, sort_keys=True, default=repr).encode()).hexdigest()[:16]


def exemption_test(checklist: Checklist, settings: Mapping | None = None):
    """A function particulars -> bool: whether an exemption applies (build_checklist's "exempt"), items unbuilt.

    Settings are resolved once and only the particulars the exemptions read are checked, so a fleet's
    thousands of vessels are decided quickly.
    """
    context = checklist.context
    resolved_settings = resolve_settings(context, settings)
    specs = {name: context.particulars[name] for name in exemption_particulars(checklist)}

    def exempt(particulars: Mapping) -> bool:
        values = {}
        for name, spec in specs.items():
            value = particulars.get(name)
            value = spec.default if value is None else value
            if value is not None:
                values[name] = check_particular(spec, value)
        env = _Env({**values, **resolved_settings}, context.terms)
        return any(_applies(e.when, env, checklist.kind, e.id, "when") for e in checklist.exemptions)

    return exempt


def build_checklist(checklist: Checklist, particulars: Mapping, settings: Mapping | None = None,
                    lang: str = "es", only: frozenset[str] | None = None) -> dict:
    """The applicable items for one vessel, with computed quantities, in the api.md shape (of the items `only`
    names, when given: the others are not evaluated)."""
    if lang not in LANGS:
        raise ChecklistError(f"unknown language {lang!r}; use one of {LANGS}")
    context = checklist.context
    values = {**resolve_particulars(context, particulars), **resolve_settings(context, settings)}
    env, literal = _Env(values, context.terms), _Env(values, context.terms, literal=True)
    result = {"kind": checklist.kind, "version": checklist.version, "title_es": checklist.title_es,
              "title_en": checklist.title_en, "exempt": False, "exemption": None, "items": []}
    for exemption in checklist.exemptions:
        if _applies(exemption.when, env, checklist.kind, exemption.id, "when"):
            result["exempt"] = True
            result["exemption"] = {"source": exemption.source, "article": exemption.article,
                                   "text": exemption.text, "reason": getattr(exemption, f"reason_{lang}")}
            return result
    for item in checklist.items:
        if only is not None and item.id not in only:
            continue
        if not _applies(item.applies, env, checklist.kind, item.id, "applies"):
            continue
        bounds = {field: _quantity(item, field, env, checklist.kind) for field in BOUNDS}
        source = context.sources[item.source]
        standing, practice = _standing(item, context, env, literal, checklist.kind)
        detainable = item.detainable and not practice
        restriction = None if practice else context.restrictions.get(item.restriction)
        result["items"].append({
            "id": item.id,
            "title": getattr(item, f"title_{lang}"),
            "topic": item.topic,
            "topic_title": context.topics[item.topic][lang],
            "source": item.source,
            "article": item.article,
            "clauses": list(item.clauses),
            "text": item.text,
            **bounds,
            "unit": getattr(item, f"unit_{lang}"),
            "whole": item.whole,  # whether the count is of whole units (2.5 lifebuoys is refused); None: no count
            "evidence_required": item.evidence_required,
            "detainable": detainable,
            "certificate": item.certificate,
            "foreign": source.foreign,
            "practice": practice,
            "standing": standing,
            "consequence": "detention" if detainable else "restriction" if restriction else "observation",
            "restriction": restriction.name if restriction else None,
            "restriction_label": getattr(restriction, f"label_{lang}") if restriction else None,
            "fine": item.fine.as_dict() if item.fine else None,  # the fine the law sets for a failure, if any
        })
    return result


def patrol_kinds(catalog: Catalog) -> tuple[str, ...]:
    """The checklist kinds a patrol may apply: those whose data names patrol items."""
    return tuple(kind for kind in catalog.kinds if catalog.get(kind).patrol)


def build_patrol_checklist(checklist: Checklist, particulars: Mapping, settings: Mapping | None = None,
                           lang: str = "es") -> dict:
    """build_checklist() cut to the items the data gives patrols (a checklist without any: ChecklistError)."""
    if not checklist.patrol:
        raise ChecklistError(f"checklist {checklist.kind!r} is not a patrol's")
    return build_checklist(checklist, particulars, settings, lang, only=frozenset(checklist.patrol))


def _standing(item: Item, context: Context, env: _Env, literal: _Env, kind: str) -> tuple[str, bool]:
    """(standing, practice) of an applicable item: "law", or the authority's practice it rests on: "foreign" (a
    foreign instrument) or "extension" (it applies to this vessel only through a term read beyond the law's word,
    e.g. a steamer's duty on a motor vessel). `practice` while that ground is not declared binding: its failures
    are then observations. An extension is binding once every term's extension is declared so.
    """
    source = context.sources[item.source]
    grounds = []
    if source.foreign:
        grounds.append(("foreign", env[source.binding_setting]))
    if not _applies(item.applies, literal, kind, item.id, "applies"):
        grounds.append(("extension", all(env[t.binding_setting] for t in context.terms.values() if t.law is not None)))
    unbound = [ground for ground, binding in grounds if not binding]
    if unbound:
        return unbound[0], True
    return (grounds[0][0] if grounds else "law"), False


def coverage_report(catalog: Catalog) -> list[dict]:
    """One row per checklist and source: item counts and the articles covered."""
    rows = []
    for kind in catalog.kinds:
        checklist = catalog.get(kind)
        for source, articles in checklist.covers.items():
            rows.append({
                "kind": kind,
                "version": checklist.version,
                "items": len(checklist.items),
                "source": source,
                "source_items": sum(1 for i in checklist.items if i.source == source),
                "articles": list(articles),
                "exemptions": [f"{e.source} art. {e.article}" for e in checklist.exemptions],
            })
    return rows


def format_coverage(rows: list[dict]) -> str:
    """Plain-text rendering of coverage_report() for the CLI."""
    lines = []
    for row in rows:
        lines.append(f"{row['kind']} {row['version']} ({row['items']} items) | {row['source']}: "
                     f"{row['source_items']} items, arts. {', '.join(row['articles'])}")
    return "\n".join(lines)


def clause_coverage(catalog: Catalog) -> list[dict]:
    """Per source, every clause (an article without clauses counts as one): the items (any checklist) covering
    it, or why it is excluded; else uncovered."""
    cited: dict[tuple[str, str, str | None], list[dict]] = {}
    for kind in catalog.kinds:
        checklist = catalog.get(kind)
        titles = {i.id: (i.title_es, i.title_en) for i in checklist.items}
        titles.update({e.id: (e.reason_es, e.reason_en) for e in checklist.exemptions})
        for source, article, clause, entry_id in citations(checklist):
            title_es, title_en = titles[entry_id]
            cited.setdefault((source, article, clause), []).append(
                {"id": entry_id, "kind": kind, "title_es": title_es, "title_en": title_en})
    texts = []
    for name, source in catalog.context.sources.items():
        rows = []
        for article in sorted(source.parts, key=int):
            part = source.parts[article]
            for clause in part.clauses or (None,):
                items = cited.get((name, article, clause), [])
                exclusion = catalog.exclusions.get((name, article, clause)) or catalog.exclusions.get(
                    (name, article, None))
                status = ("covered" if items else "uncovered" if exclusion is None
                          else "pending" if exclusion.pending else "excluded")
                words = part.text if clause is None else part.clauses[clause]
                rows.append({"article": article, "clause": clause, "ref": clause_ref(article, clause),
                             "words": words if len(words) <= EXCERPT else words[:EXCERPT - 1].rstrip() + "…",
                             "status": status, "items": items,
                             "reason_es": exclusion.reason_es if exclusion else None,
                             "reason_en": exclusion.reason_en if exclusion else None})
        texts.append({"source": name, "short_es": source.short_es, "short_en": source.short_en,
                      "files": list(source.files), "clauses": rows, "counts": _counts(rows)})
    return texts


def _counts(rows: list[dict]) -> dict[str, int]:
    """How many clauses have each status, and the total."""
    return {**{status: sum(1 for r in rows if r["status"] == status) for status in STATUS_ES}, "total": len(rows)}


def clause_totals(texts: list[dict]) -> dict[str, int]:
    """clause_coverage()'s counts summed over every text."""
    return {key: sum(t["counts"][key] for t in texts) for key in (*STATUS_ES, "total")}


def uncovered_clauses(texts: list[dict]) -> list[str]:
    """'Source art. 41(b)' for each clause neither covered nor excluded nor pending."""
    return [f"{t['source']} art. {c['ref']}" for t in texts for c in t["clauses"] if c["status"] == "uncovered"]


def format_clause_coverage(texts: list[dict]) -> str:
    """Plain-text rendering of clause_coverage() for the CLI, in Spanish: one line per clause, then the totals."""
    lines = []
    for text in texts:
        lines.append(f"== {text['source']} ({', '.join(text['files'])}): "
                     + ", ".join(f"{label} {text['counts'][status]}" for status, label in STATUS_ES.items()))
        for c in text["clauses"]:
            if c["status"] == "covered":
                detail = ", ".join(i["id"] for i in c["items"])
            elif c["status"] == "uncovered":
                detail = "ningún ítem lo cita y exclusions.toml no lo lista"
            else:
                detail = c["reason_es"]
            lines.append(f"  art. {c['ref']}: {STATUS_ES[c['status']]}: {detail}")
    totals = clause_totals(texts)
    lines.append(f"Cláusulas: {totals['total']} ("
                 + ", ".join(f"{label.lower()} {totals[status]}" for status, label in STATUS_ES.items()) + ")")
    return "\n".join(lines)


def checklist_versions(catalog: Catalog) -> list[dict]:
    """Per checklist: version, item count, whether it is frozen, and the changes from the previous frozen version."""
    rows = []
    for kind in catalog.kinds:
        checklist, snapshots = catalog.get(kind), catalog.history[kind]
        previous = history.previous_version(snapshots, checklist.version)
        changes = history.diff_snapshots(snapshots[previous], history.snapshot(checklist)) if previous else None
        rows.append({"kind": kind, "version": checklist.version, "items": len(checklist.items),
                     "frozen": checklist.version in snapshots, "previous": previous, "changes": changes})
    return rows
