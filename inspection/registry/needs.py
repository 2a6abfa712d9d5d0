"""Which certificates a vessel needs, decided by its checklists' exemptions (hull art. 210, machinery art. 211).

The decision is stored on the vessel whenever its particulars are written (vessels._apply), with the
digest of the rules and settings that made it (`needs_basis`). A reader trusts the stored answer only
while that digest is the current one; otherwise it decides again from the particulars. So a checklist
or settings change never leaves a wrong answer, only a slower one until `flask vessels refresh-needs`.
"""
import hashlib
from functools import lru_cache

from flask import current_app

from checklists import exemption_basis, exemption_test, load_catalog
from inspection.core.extensions import db
from inspection.core.models import Vessel
from inspection.core.readcache import cached, data_stamp
from inspection.law.cycle import KINDS, needed_kinds

COLUMNS = {kind: f"needs_{kind}" for kind in KINDS}


def _settings() -> tuple:
    return tuple(sorted((current_app.config.get("CHECKLIST_SETTINGS") or {}).items()))


def exemption_for(kind: str):
    """is_exempt for one kind as a function of the particulars, for deciding many vessels in a row."""
    return _exemption_test(kind, _settings())


@lru_cache(maxsize=32)
def _exemption_test(kind: str, settings: tuple):
    """The compiled exemption test of a kind under these settings (the catalog is loaded once per process)."""
    return exemption_test(load_catalog().get(kind), dict(settings))


def is_exempt(particulars: dict, kind: str) -> bool:
    """Whether an exemption of the `kind` checklist applies to these particulars (arts. 210, 211), items unbuilt."""
    return exemption_for(kind)(particulars)


def needs_of(particulars: dict) -> tuple[str, ...]:
    """The certificate kinds a vessel needs, as its checklists' exemptions say (arts. 210, 211)."""
    return needed_kinds({kind: is_exempt(particulars, kind) for kind in KINDS})


def needs_basis() -> str:
    """The digest of every rule and setting that decides the needs (both kinds): what a stored answer is worth."""
    return _basis(_settings())


@lru_cache(maxsize=32)
def _basis(settings: tuple) -> str:
    catalog = load_catalog()
    parts = "|".join(exemption_basis(catalog.get(kind), dict(settings)) for kind in KINDS)
    return hashlib.sha256(parts.encode()).hexdigest()[:16]


def decided_needs(particulars: dict) -> dict:
    """The stored columns for these particulars: needs_<kind> for each kind, and the basis that decided them."""
    needs = needs_of(particulars)
    return {**{column: kind in needs for kind, column in COLUMNS.items()}, "needs_basis": needs_basis()}


def stored_needs(vessel: Vessel) -> tuple[str, ...] | None:
    """The needs stored on the vessel, or None when they were decided under other rules (or never)."""
    if vessel.needs_basis != needs_basis():
        return None
    return tuple(kind for kind, column in COLUMNS.items() if getattr(vessel, column))


def refresh_needs(particulars_of) -> int:
    """Decide again the vessels whose stored needs are stale (after a checklist or settings change); flushes.

    `particulars_of(vessel)` is vessels.particulars_of (passed in: vessels.py writes through this module).
    """
    stale = db.session.scalars(db.select(Vessel).where(stale_needs()).order_by(Vessel.id)).all()
    for vessel in stale:
        for column, value in decided_needs(particulars_of(vessel)).items():
            setattr(vessel, column, value)
    db.session.flush()
    return len(stale)


def any_stale() -> bool:
    """Whether any vessel's stored needs are stale: one query (two index counts), kept per process under the
    registry's stamp, which every write of a vessel redraws (readcache), and the rules' digest."""
    return cached("needs_stale", (data_stamp("registry"), needs_basis()), _any_stale, size=4)


def _any_stale() -> bool:
    count = db.func.count()
    fresh = db.select(count).select_from(Vessel).where(Vessel.needs_basis == needs_basis()).scalar_subquery()
    return bool(db.session.scalar(db.select(db.select(count).select_from(Vessel).scalar_subquery() - fresh)))


def stale_needs():
    """SQL: the vessel's stored needs were decided under other rules, or never (NULL is never equal)."""
    return db.or_(Vessel.needs_basis.is_(None), Vessel.needs_basis != needs_basis())
