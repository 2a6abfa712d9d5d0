"""The database records of Baliza: registry, users, inspections, evidence, certificates, audit.

Timestamps (`*_at`) are timezone-aware UTC; the law's deadlines (`*_on`) are dates.
Models hold data and small derived properties; business actions live in operation modules.
"""
from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.hybrid import hybrid_method
from sqlalchemy.orm import Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from inspection.core import clock
from inspection.core.extensions import db

# "reviewer": the Prefecto General de Puertos and the delegates he names, who countersign (art. 221).
ROLES = ("admin", "inspector", "owner", "police", "reviewer")
REVIEW_STATUSES = ("pending", "returned", "countersigned")
FLAGS = ("national", "foreign")
PROPULSIONS = ("steam", "motor", "sail", "rowing", "towed")
SERVICES = ("passenger", "cargo", "mixed", "tug", "livestock", "tanker", "raft", "work")
HULLS = ("iron", "steel", "wood", "mixed")  # steel takes iron's art. 195 factor (tonnage.py)
COOKING = ("galley", "brazier", "none")
ITINERARY_CATEGORIES = ("A", "B", "C", "D")  # Código de Navegación art. 23: which documents go aboard
# Decreto 6383/1951 art. 1: pilotage on the Sección Sur del Río Paraguay; "unset" until the registry records it
PRACTICAJE = ("unset", "none", "to_angostura", "beyond_angostura", "fixed_itinerary")
KINDS = ("navegabilidad", "seguridad")
INSPECTION_STATUSES = ("scheduled", "in_progress", "submitted", "interrupted", "cancelled")
OPEN_INSPECTIONS = ("scheduled", "in_progress")  # on the calendar: still to be done aboard
_OPEN_INSPECTION = sa.text("status IN (%s)" % ", ".join(f"'{status}'" for status in OPEN_INSPECTIONS))
OUTCOMES = ("passed", "passed_with_observations", "failed")
RESULTS = ("pass", "fail", "not_applicable")
ACTIONS = ("rectified", "before_departure", "within_14_days", "next_port", "detained")
DEFICIENCY_STATUSES = ("open", "reported_fixed", "closed")
APPLICATION_STATUSES = ("pending", "scheduled", "done", "cancelled")
TOKEN_KINDS = ("api", "device")  # api: hours, by password; device: a tablet's trip, listed and revocable
# A patrol check's outcome (issue 23); "retencion" only where a failed item's law allows detaining.
PATROL_OUTCOMES = ("sin_novedad", "observaciones", "infraccion", "retencion")
PATROL_CHECKLISTS = ("menores", "conducta", "documentacion")  # the lists whose data names patrol items


def utcnow() -> datetime:
    """The current time in UTC from the app's one clock (a test's set clock too); called per row, never at import."""
    return clock.system_now()


class UTCDateTime(TypeDecorator):
    """A timestamp stored in UTC that always comes back timezone-aware, on SQLite too."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime; Baliza stores UTC timestamps only")
        return value.astimezone(timezone.utc)

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value


def _enum(name: str, values: tuple[str, ...]) -> sa.Enum:
    """A portable enum stored as a checked string, so adding a value is a simple migration."""
    return sa.Enum(*values, name=name, native_enum=False, create_constraint=True, length=32)


class Owner(db.Model):
    """An armador: the person or company that owns and answers for vessels."""

    __tablename__ = "owners"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(200))
    tax_id: Mapped[str] = mapped_column(sa.String(40), unique=True)
    email: Mapped[str | None] = mapped_column(sa.String(200))
    phone: Mapped[str | None] = mapped_column(sa.String(60))
    address: Mapped[str | None] = mapped_column(sa.String(300))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    vessels: Mapped[list[Vessel]] = relationship(back_populates="owner")


class Vessel(db.Model):
    """A registered vessel with every particular that the law's rules need."""

    __tablename__ = "vessels"
    id: Mapped[int] = mapped_column(primary_key=True)
    registration: Mapped[str] = mapped_column(sa.String(40))
    # Uppercase, no spaces: the key that makes "py 1234" and "PY-1234 " collide (art. 66 marks).
    registration_key: Mapped[str] = mapped_column(sa.String(40), unique=True)
    name: Mapped[str] = mapped_column(sa.String(120), index=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("owners.id"), index=True)
    flag: Mapped[str] = mapped_column(_enum("flag", FLAGS))
    cabotage_permit: Mapped[str | None] = mapped_column(sa.String(60))
    home_port: Mapped[str] = mapped_column(sa.String(120))
    propulsion: Mapped[str] = mapped_column(_enum("propulsion", PROPULSIONS), index=True)
    service: Mapped[str] = mapped_column(_enum("service", SERVICES), index=True)
    hull_material: Mapped[str] = mapped_column(_enum("hull_material", HULLS))
    length_m: Mapped[Decimal] = mapped_column(sa.Numeric(8, 2, asdecimal=True))
    beam_m: Mapped[Decimal] = mapped_column(sa.Numeric(8, 2, asdecimal=True))
    girth_m: Mapped[Decimal] = mapped_column(sa.Numeric(8, 2, asdecimal=True))
    # Exact art. 195 value to 6 places, for sorting and fees; the API recomputes it exactly.
    gross_tonnage: Mapped[Decimal] = mapped_column(sa.Numeric(16, 6, asdecimal=True))
    crew: Mapped[int] = mapped_column(default=0)
    max_passengers: Mapped[int] = mapped_column(default=0)
    cabins: Mapped[int] = mapped_column(default=0)
    fire_hydrants: Mapped[int] = mapped_column(default=0)
    holds: Mapped[int] = mapped_column(default=0)
    boilers: Mapped[int] = mapped_column(default=0)
    steam_launch: Mapped[bool] = mapped_column(default=False)
    boats: Mapped[int] = mapped_column(default=0)
    cooking: Mapped[str] = mapped_column(_enum("cooking", COOKING), default="none")
    hot_climate: Mapped[bool] = mapped_column(default=False)
    # Flammable or explosive cargo usually carried, in kg (Ley 928 arts. 133-140), not the vessel's own fuel.
    flammable_cargo_kg: Mapped[int] = mapped_column(default=0, server_default="0")
    itinerary_category: Mapped[str] = mapped_column(_enum("itinerary_category", ITINERARY_CATEGORIES), default="B")
    # How many pilots the vessel embarks on the Sección Sur del Río Paraguay (Decreto 6383 art. 1 b-e).
    practicaje: Mapped[str] = mapped_column(_enum("practicaje", PRACTICAJE), default="unset", server_default="unset")
    # Whether it needs each certificate (its checklists' exemptions: arts. 210, 211), decided by needs.py when
    # the particulars are written; `needs_basis` is the digest of the rules that decided it (None: undecided),
    # so a change to those rules or settings makes the stored answer stale, never wrong.
    needs_navegabilidad: Mapped[bool | None] = mapped_column()
    needs_seguridad: Mapped[bool | None] = mapped_column()
    needs_basis: Mapped[str | None] = mapped_column(sa.String(16), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow, index=True)

    owner: Mapped[Owner] = relationship(back_populates="vessels")


class User(db.Model):
    """Someone who signs in: authority staff, an inspector, an owner's representative or police."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(sa.String(80), unique=True)
    full_name: Mapped[str] = mapped_column(sa.String(200), default="")
    password_hash: Mapped[str] = mapped_column(sa.String(300))
    role: Mapped[str] = mapped_column(_enum("role", ROLES))
    owner_id: Mapped[int | None] = mapped_column(sa.ForeignKey("owners.id"))
    language: Mapped[str] = mapped_column(sa.String(5), default="es")
    active: Mapped[bool] = mapped_column(default=True)
    # A police officer's unit (a patrol boat, a station): officers see their unit's patrol checks.
    unit: Mapped[str | None] = mapped_column(sa.String(80))
    # A reviewer's capacity as printed under the countersignature: "Prefecto General de Puertos", or the delegation.
    title: Mapped[str | None] = mapped_column(sa.String(200))
    # Where reminders are emailed (an owner's user without one falls back to the armador's); None: in-app only.
    email: Mapped[str | None] = mapped_column(sa.String(200))
    # The private calendar feed's URL carries HMAC(SECRET_KEY, id:nonce) (calendars.py): the database keeps
    # only the nonce, so a copy of it opens no feed; renewing draws a new nonce and the old URL dies at once.
    calendar_nonce: Mapped[str | None] = mapped_column(sa.String(64))
    calendar_renewed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    owner: Mapped[Owner | None] = relationship()
    conflicts: Mapped[list[ConflictOfInterest]] = relationship(back_populates="user")

    # Flask-Login protocol
    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_active(self) -> bool:
        return self.active

    @property
    def is_anonymous(self) -> bool:
        return False

    def get_id(self) -> str:
        return str(self.id)


class ConflictOfInterest(db.Model):
    """A declared link between an inspector and an owner (art. 214 bars inspecting its vessels)."""

    __tablename__ = "conflicts_of_interest"
    __table_args__ = (sa.UniqueConstraint("user_id", "owner_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), index=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("owners.id"))
    reason: Mapped[str] = mapped_column(sa.String(300), default="")
    declared_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    user: Mapped[User] = relationship(back_populates="conflicts")


class ApiToken(db.Model):
    """A bearer token for the JSON API; only its SHA-256 is stored, so a leak of the table is inert.

    A device token is a tablet's session for a trip offline (DEVICE_TOKEN_DAYS): it has a name, says
    when it was last used, and its user or an admin can revoke it.
    """

    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), index=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    kind: Mapped[str] = mapped_column(_enum("token_kind", TOKEN_KINDS), default="api", server_default="api")
    device_name: Mapped[str | None] = mapped_column(sa.String(120))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    user: Mapped[User] = relationship()


class UserSession(db.Model):
    """A page sign-in: the cookie carries only its random id, the table only that id's SHA-256.

    Every request with a cookie checks this row, so logout, a password change or an admin
    disabling the account ends the session on every app server at once.
    """

    __tablename__ = "user_sessions"
    id: Mapped[int] = mapped_column(primary_key=True)
    session_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    user_agent: Mapped[str] = mapped_column(sa.String(200), default="")

    user: Mapped[User] = relationship()


class RateCounter(db.Model):
    """Requests per client and limited scope, and sign-in attempts per username, in the current fixed window (rate_limits.py), shared by every app server."""

    __tablename__ = "rate_counters"
    __table_args__ = (sa.Index("ix_rate_counters_window_started_at", "window_started_at"),)
    bucket: Mapped[str] = mapped_column(sa.String(120), primary_key=True)  # "scope:client address" or "user:name"
    window_started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    hits: Mapped[int] = mapped_column(default=0)


# Counters only restart their windows when lost, so PostgreSQL keeps them out of the WAL: a count then
# commits without a log flush (rate_limits.py; migration rate22 does the same to an existing table).
sa.event.listen(RateCounter.__table__, "after_create",
                sa.DDL("ALTER TABLE rate_counters SET UNLOGGED").execute_if(dialect="postgresql"))


class Inspection(db.Model):
    """One inspection of one vessel for one certificate kind, pinned to a checklist version.

    One open inspection (scheduled or in progress) per vessel and kind is a fact of the schema (partial
    unique index): two staff scheduling the same work at once cannot both commit it.
    """

    __tablename__ = "inspections"
    # The dashboard's inspections per inspector and month, and failed answers of submitted inspections.
    __table_args__ = (sa.Index("ix_inspections_status_scheduled_on", "status", "scheduled_on", "inspector_id"),
                      sa.Index("uq_inspections_open", "vessel_id", "kind", unique=True,
                               sqlite_where=_OPEN_INSPECTION, postgresql_where=_OPEN_INSPECTION))
    id: Mapped[int] = mapped_column(primary_key=True)
    vessel_id: Mapped[int] = mapped_column(sa.ForeignKey("vessels.id"), index=True)
    kind: Mapped[str] = mapped_column(_enum("inspection_kind", KINDS))
    inspector_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), index=True)
    scheduled_on: Mapped[date] = mapped_column(sa.Date, index=True)
    port: Mapped[str] = mapped_column(sa.String(120))
    status: Mapped[str] = mapped_column(
        _enum("inspection_status", INSPECTION_STATUSES), default="scheduled", index=True
    )
    reinspection_of_id: Mapped[int | None] = mapped_column(sa.ForeignKey("inspections.id"))
    # Pinned at start: the checklist versions and computed items, and the particulars used.
    checklist_versions: Mapped[dict | None] = mapped_column(sa.JSON)
    items: Mapped[list | None] = mapped_column(sa.JSON)
    particulars: Mapped[dict | None] = mapped_column(sa.JSON)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # An inspection that could not be finished: stopped with a reason, no outcome (closing.py).
    interrupted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    interruption_reason: Mapped[str | None] = mapped_column(sa.Text)
    # A scheduled inspection called off before anyone went aboard (booked wrong), with the reason.
    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    cancellation_reason: Mapped[str | None] = mapped_column(sa.Text)
    outcome: Mapped[str | None] = mapped_column(_enum("outcome", OUTCOMES))
    inspector_signature: Mapped[str | None] = mapped_column(sa.String(200))
    master_name: Mapped[str | None] = mapped_column(sa.String(200))
    # The drawn signatures (normalized PNGs in the media storage, content-addressed) and their SHA-256.
    inspector_signature_key: Mapped[str | None] = mapped_column(sa.String(512))
    inspector_signature_sha256: Mapped[str | None] = mapped_column(sa.String(64))
    master_signature_key: Mapped[str | None] = mapped_column(sa.String(512))
    master_signature_sha256: Mapped[str | None] = mapped_column(sa.String(64))
    # Services of the Inspección de Máquinas the inspector recorded at closing, charged by art. 233's rows.
    # The database fills the 0 (no Python default), so an insert never names them: migrations older than these
    # columns insert through the same model.
    reports: Mapped[int] = mapped_column(server_default="0")  # "informes, peritajes de averías"
    valve_reseals: Mapped[int] = mapped_column(server_default="0")  # valves sealed again
    # The review of art. 221 (inspections/review.py): None for a kind nobody countersigns; "pending" from the
    # closing, "returned" to the inspector with a note, "countersigned" with the reviewer's drawn signature.
    review_status: Mapped[str | None] = mapped_column(_enum("review_status", REVIEW_STATUSES), index=True)
    review_note: Mapped[str | None] = mapped_column(sa.Text)
    countersigned_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    countersigned_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"))
    # The closing's term chosen by the inspector (arts. 203, 211), kept for a certificate issued at the countersignature.
    chosen_valid_until: Mapped[date | None] = mapped_column(sa.Date)
    reviewer_signature_key: Mapped[str | None] = mapped_column(sa.String(512))
    reviewer_signature_sha256: Mapped[str | None] = mapped_column(sa.String(64))
    created_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    vessel: Mapped[Vessel] = relationship()
    inspector: Mapped[User] = relationship(foreign_keys=[inspector_id])
    countersigned_by: Mapped[User | None] = relationship(foreign_keys=[countersigned_by_id])


class Answer(db.Model):
    """One answer to one item; every revision is kept, the newest by the tablet's clock is current.

    The partial unique index makes "one current answer per item" a fact of the schema: two writers
    that both think they hold the newest answer cannot both commit it.
    """

    __tablename__ = "answers"
    __table_args__ = (
        sa.Index("ix_answers_inspection_item", "inspection_id", "item_id"),
        sa.Index("uq_answers_current_item", "inspection_id", "item_id", unique=True,
                 sqlite_where=sa.text("current"), postgresql_where=sa.text("current")),
        # The dashboard's articles most often failed read only these few rows (each predicate as
        # SQLAlchemy renders `Answer.current` there, so the planner sees the query implies it).
        sa.Index("ix_answers_current_failures", "inspection_id", "item_id",
                 sqlite_where=sa.text("current = 1 AND result = 'fail'"),
                 postgresql_where=sa.text("current AND result = 'fail'")),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    inspection_id: Mapped[int] = mapped_column(sa.ForeignKey("inspections.id"))
    item_id: Mapped[str] = mapped_column(sa.String(120))
    client_id: Mapped[str] = mapped_column(sa.String(36), unique=True)
    result: Mapped[str] = mapped_column(_enum("result", RESULTS))
    observed: Mapped[Decimal | None] = mapped_column(sa.Numeric(12, 2, asdecimal=True))
    note: Mapped[str] = mapped_column(sa.Text, default="")
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime)  # tablet's clock, orders revisions
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    current: Mapped[bool] = mapped_column(default=True)
    photo_hashes: Mapped[list] = mapped_column(sa.JSON, default=list)  # photos the tablet took, by SHA-256
    action: Mapped[str | None] = mapped_column(_enum("answer_action", ACTIONS))  # proposed for a failure
    answered_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))


class Photo(db.Model):
    """Photo evidence of one item: the original bytes by SHA-256, plus display and thumbnail copies.

    The files are content-addressed, so the same picture filed under several items is one set of
    files with a record per item.
    """

    __tablename__ = "photos"
    __table_args__ = (sa.UniqueConstraint("inspection_id", "item_id", "sha256", name="uq_photos_inspection_item_sha256"),
                      sa.UniqueConstraint("patrol_check_id", "item_id", "sha256",
                                          name="uq_photos_patrol_check_item_sha256"),
                      sa.CheckConstraint("(inspection_id IS NULL) <> (patrol_check_id IS NULL)",
                                         name="one_record"),
                      sa.CheckConstraint("position_source IN ('device', 'exif', 'none')", name="position_source"))
    id: Mapped[int] = mapped_column(primary_key=True)
    # The record the photo is evidence of: an inspection's item, or a patrol check's (exactly one).
    inspection_id: Mapped[int | None] = mapped_column(sa.ForeignKey("inspections.id"), index=True)
    patrol_check_id: Mapped[int | None] = mapped_column(sa.ForeignKey("patrol_checks.id"), index=True)
    item_id: Mapped[str] = mapped_column(sa.String(120))
    client_id: Mapped[str] = mapped_column(sa.String(36), unique=True)
    sha256: Mapped[str] = mapped_column(sa.String(64))
    mime: Mapped[str] = mapped_column(sa.String(40))
    size_bytes: Mapped[int]
    width: Mapped[int]
    height: Mapped[int]
    original_key: Mapped[str] = mapped_column(sa.String(200))
    display_key: Mapped[str] = mapped_column(sa.String(200))
    thumb_key: Mapped[str] = mapped_column(sa.String(200))
    taken_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Where it was taken (issue 24): the position sent with it (the device's fix, or the camera's EXIF position the
    # tablet read before re-encoding), else the received file's EXIF position, else none
    # (media/places.py); the flags point a reviewer at it ("far_from_port", "outside_inspection_time").
    latitude: Mapped[float | None]
    longitude: Mapped[float | None]
    accuracy_m: Mapped[float | None]  # metres: the device's radius, or the EXIF's GPSHPositioningError
    position_source: Mapped[str] = mapped_column(sa.String(8), default="none", server_default="none")
    flags: Mapped[list | None] = mapped_column(sa.JSON)
    uploaded_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # The marks drawn over it (issue 24), a separate layer: the current one, loaded with the photos in one query.
    marks: Mapped[PhotoMarks | None] = relationship(
        primaryjoin="and_(PhotoMarks.photo_id == Photo.id, PhotoMarks.current)", viewonly=True, lazy="selectin",
        uselist=False)


class PhotoMarks(db.Model):
    """A layer of marks (circles, arrows, labels) drawn over a photo, kept apart so the evidence is never altered.

    The layer (media/marks.py's format) names the photo's SHA-256 and has its own; every version is kept:
    a new one makes the earlier not current, and the partial unique index allows one current layer per photo.
    """

    __tablename__ = "photo_marks"
    __table_args__ = (sa.UniqueConstraint("photo_id", "version", name="uq_photo_marks_photo_version"),
                      sa.Index("uq_photo_marks_current", "photo_id", unique=True,
                               sqlite_where=sa.text("current"), postgresql_where=sa.text("current")))
    id: Mapped[int] = mapped_column(primary_key=True)
    photo_id: Mapped[int] = mapped_column(sa.ForeignKey("photos.id"))
    version: Mapped[int]
    client_id: Mapped[str] = mapped_column(sa.String(36), unique=True)
    sha256: Mapped[str] = mapped_column(sa.String(64))  # of the layer's canonical bytes
    photo_sha256: Mapped[str] = mapped_column(sa.String(64))  # the photo it is drawn over
    layer: Mapped[dict] = mapped_column(sa.JSON)
    current: Mapped[bool] = mapped_column(default=True)
    drawn_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PatrolCheck(db.Model):
    """A police or harbour patrol's check of one vessel or unregistered craft, on a phone (issue 23).

    Who (the officer and his unit), when (the phone's time, bounded as the tablet's), where (position or a
    named place), which craft (a registered vessel, or marks, type and length), the short checklist pinned
    with its version, the scanned certificate's verdict, and the outcome. A retry never makes a second one:
    (officer, client_id) is unique.
    """

    __tablename__ = "patrol_checks"
    __table_args__ = (sa.UniqueConstraint("officer_id", "client_id", name="uq_patrol_checks_officer_client_id"),
                      sa.CheckConstraint("(vessel_id IS NULL) <> (craft_type IS NULL)", name="vessel_or_craft"),
                      sa.Index("ix_patrol_checks_closed_at_outcome", "closed_at", "outcome"))
    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[str] = mapped_column(sa.String(36))
    officer_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"), index=True)
    unit: Mapped[str | None] = mapped_column(sa.String(80), index=True)  # the officer's unit at the check
    checked_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)  # the phone's clock, bounded
    latitude: Mapped[float | None]
    longitude: Mapped[float | None]
    place: Mapped[str | None] = mapped_column(sa.String(120))  # a named place or river kilometre
    vessel_id: Mapped[int | None] = mapped_column(sa.ForeignKey("vessels.id"), index=True)
    # An unregistered craft, as the officer describes it (art. 66 marks, if any; its type and length).
    craft_marks: Mapped[str | None] = mapped_column(sa.String(60))
    craft_type: Mapped[str | None] = mapped_column(_enum("craft_type", PROPULSIONS))
    craft_length_m: Mapped[Decimal | None] = mapped_column(sa.Numeric(8, 2, asdecimal=True))
    # Pinned at creation: the list, its version, the items built for the craft, and the particulars used.
    checklist: Mapped[str] = mapped_column(_enum("patrol_checklist", PATROL_CHECKLISTS))
    checklist_version: Mapped[str] = mapped_column(sa.String(20))
    items: Mapped[list] = mapped_column(sa.JSON)
    particulars: Mapped[dict] = mapped_column(sa.JSON)
    # A check started from a certificate's QR: the token, the verifier's verdict and its status list's age.
    verification_token: Mapped[str | None] = mapped_column(sa.Text)
    verification_verdict: Mapped[str | None] = mapped_column(sa.String(20))
    list_age_s: Mapped[int | None]
    outcome: Mapped[str | None] = mapped_column(_enum("patrol_outcome", PATROL_OUTCOMES))
    # At closing: each failed item's source, article and the fine its law sets (None where it sets none).
    infringements: Mapped[list] = mapped_column(sa.JSON, default=list)
    note: Mapped[str] = mapped_column(sa.Text, default="")
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    officer: Mapped[User] = relationship()
    vessel: Mapped[Vessel | None] = relationship()
    answers: Mapped[list[PatrolAnswer]] = relationship(order_by="PatrolAnswer.id")


class PatrolAnswer(db.Model):
    """One answer of a patrol check: the item's result and the quantity seen; the newest by the phone's clock stands."""

    __tablename__ = "patrol_answers"
    __table_args__ = (sa.UniqueConstraint("check_id", "item_id", name="uq_patrol_answers_check_item"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    check_id: Mapped[int] = mapped_column(sa.ForeignKey("patrol_checks.id"))
    item_id: Mapped[str] = mapped_column(sa.String(120))
    client_id: Mapped[str] = mapped_column(sa.String(36))
    result: Mapped[str] = mapped_column(_enum("result", RESULTS))
    observed: Mapped[Decimal | None] = mapped_column(sa.Numeric(12, 2, asdecimal=True))
    note: Mapped[str] = mapped_column(sa.Text, default="")
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime)  # the phone's clock: orders revisions
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PhotoUpload(db.Model):
    """A photo arriving in pieces (resumable upload): what the tablet declared, how much arrived, what it became.

    Several app servers share it, so it lives in the database; `received` is the next byte expected.
    """

    __tablename__ = "photo_uploads"
    __table_args__ = (sa.UniqueConstraint("user_id", "client_id", name="uq_photo_uploads_user_id_client_id"),
                      sa.CheckConstraint("(inspection_id IS NULL) <> (patrol_check_id IS NULL)",
                                         name="one_record"))
    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[str] = mapped_column(sa.String(36))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    # The record the photo will be evidence of, as the photo's own columns: an inspection or a patrol check.
    inspection_id: Mapped[int | None] = mapped_column(sa.ForeignKey("inspections.id"), index=True)
    patrol_check_id: Mapped[int | None] = mapped_column(sa.ForeignKey("patrol_checks.id"), index=True)
    item_id: Mapped[str] = mapped_column(sa.String(120))
    sha256: Mapped[str] = mapped_column(sa.String(64))
    size: Mapped[int]
    mime: Mapped[str] = mapped_column(sa.String(40))
    meta: Mapped[dict] = mapped_column(sa.JSON)
    received: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    photo_id: Mapped[int | None] = mapped_column(sa.ForeignKey("photos.id"))


class PhotoUploadPart(db.Model):
    """One PATCH's bytes of an upload, starting at `offset`; the parts in order are the photo."""

    __tablename__ = "photo_upload_parts"
    upload_id: Mapped[int] = mapped_column(sa.ForeignKey("photo_uploads.id"), primary_key=True)
    offset: Mapped[int] = mapped_column(primary_key=True)
    data: Mapped[bytes] = mapped_column(sa.LargeBinary)


class Deficiency(db.Model):
    """A failed item turned into a follow-up with an action and a due date (port-state practice)."""

    __tablename__ = "deficiencies"
    id: Mapped[int] = mapped_column(primary_key=True)
    inspection_id: Mapped[int] = mapped_column(sa.ForeignKey("inspections.id"), index=True)
    vessel_id: Mapped[int] = mapped_column(sa.ForeignKey("vessels.id"), index=True)
    item_id: Mapped[str] = mapped_column(sa.String(120))
    source: Mapped[str] = mapped_column(sa.String(120))
    article: Mapped[str] = mapped_column(sa.String(20))
    description: Mapped[str] = mapped_column(sa.Text)
    action: Mapped[str] = mapped_column(_enum("deficiency_action", ACTIONS))
    detainable: Mapped[bool] = mapped_column(default=False)
    # From the authority's practice not declared binding, as pinned: an observation, never a detention.
    practice: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    # The failed item's standing as pinned: "law", or the practice it rests on ("foreign", "extension").
    standing: Mapped[str] = mapped_column(sa.String(20), default="law", server_default="law")
    # The restriction its article orders instead of a detention (checklists/restrictions.toml), as pinned.
    restriction: Mapped[str | None] = mapped_column(sa.String(40))
    due_on: Mapped[date | None] = mapped_column(sa.Date)
    status: Mapped[str] = mapped_column(
        _enum("deficiency_status", DEFICIENCY_STATUSES), default="open", index=True
    )
    reported_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reported_note: Mapped[str | None] = mapped_column(sa.Text)
    reported_photo_id: Mapped[int | None] = mapped_column(sa.ForeignKey("photos.id"))
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"))
    closing_note: Mapped[str | None] = mapped_column(sa.Text)
    vessel: Mapped[Vessel] = relationship()

    @hybrid_method
    def overdue_on(self, today: date) -> bool:
        """Not closed and past its due date on `today`: one rule for the list's filter and its badge."""
        return self.status != "closed" and self.due_on is not None and self.due_on < today

    @overdue_on.expression
    def overdue_on(cls, today: date):
        """The same rule in SQL (a NULL due date is never overdue)."""
        return sa.and_(cls.status != "closed", cls.due_on < today)


class Detention(db.Model):
    """A detention decision (art. 208), separate from the actions on single deficiencies.

    A vessel is detained once at a time: one detention not yet lifted per vessel (partial unique index).
    """

    __tablename__ = "detentions"
    __table_args__ = (sa.Index("uq_detentions_open", "vessel_id", unique=True,
                               sqlite_where=sa.text("lifted_at IS NULL"), postgresql_where=sa.text("lifted_at IS NULL")),)
    id: Mapped[int] = mapped_column(primary_key=True)
    vessel_id: Mapped[int] = mapped_column(sa.ForeignKey("vessels.id"), index=True)
    inspection_id: Mapped[int | None] = mapped_column(sa.ForeignKey("inspections.id"))
    reason: Mapped[str] = mapped_column(sa.Text)
    decided_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    decided_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    lifted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    lifted_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"))
    lift_reason: Mapped[str | None] = mapped_column(sa.Text)


class SigningKey(db.Model):
    """A public signing key of an issuing office; the private half lives only in KEYS_DIR."""

    __tablename__ = "signing_keys"
    kid: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    office_code: Mapped[str] = mapped_column(sa.String(40))
    public_jwk: Mapped[dict] = mapped_column(sa.JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class CertificateSerial(db.Model):
    """The last serial used per kind and year; bumped with one atomic UPDATE when issuing."""

    __tablename__ = "certificate_serials"
    kind: Mapped[str] = mapped_column(sa.String(20), primary_key=True)
    year: Mapped[int] = mapped_column(primary_key=True)
    last_serial: Mapped[int] = mapped_column(default=0)


class Certificate(db.Model):
    """A navigability or safety certificate; its status is derived from records, never typed."""

    __tablename__ = "certificates"
    # The dashboard's certificates in force per vessel and kind at each month end.
    # The current ones (not superseded), covering the planning board's overdue probe and the due counts.
    __table_args__ = (sa.Index("ix_certificates_kind_vessel_valid_until", "kind", "vessel_id", "valid_until"),
                      sa.Index("ix_certificates_current", "kind", "vessel_id", "valid_until", "revoked_at",
                               sqlite_where=sa.text("superseded_by_id IS NULL"),
                               postgresql_where=sa.text("superseded_by_id IS NULL")),
                      # One certificate in force per inspection: a returned inspection's is revoked (art. 221) before
                      # its corrected closing issues another, so an inspection may hold several over time.
                      sa.Index("uq_certificates_inspection_current", "inspection_id", unique=True,
                               sqlite_where=sa.text("revoked_at IS NULL"),
                               postgresql_where=sa.text("revoked_at IS NULL")))
    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(sa.String(40), unique=True)
    kind: Mapped[str] = mapped_column(_enum("certificate_kind", KINDS))
    vessel_id: Mapped[int] = mapped_column(sa.ForeignKey("vessels.id"), index=True)
    inspection_id: Mapped[int] = mapped_column(sa.ForeignKey("inspections.id"), index=True)
    # The certificate of the same inspection this one replaces: revoked when the reviewer returned it (art. 221).
    replaces_id: Mapped[int | None] = mapped_column(sa.ForeignKey("certificates.id"))
    revision: Mapped[int] = mapped_column(default=1)
    issued_on: Mapped[date] = mapped_column(sa.Date)
    # Art. 207: the term runs from the inspection performed (its office date), not from the issue.
    inspected_on: Mapped[date] = mapped_column(sa.Date)
    valid_until: Mapped[date] = mapped_column(sa.Date, index=True)
    next_inspection_on: Mapped[date | None] = mapped_column(sa.Date)
    status_index: Mapped[int] = mapped_column(unique=True)
    office_code: Mapped[str] = mapped_column(sa.String(40))
    kid: Mapped[str] = mapped_column(sa.ForeignKey("signing_keys.kid"))
    token: Mapped[str] = mapped_column(sa.Text)
    qr_png: Mapped[bytes] = mapped_column(sa.LargeBinary)
    qr_version: Mapped[int]
    conditions: Mapped[list] = mapped_column(sa.JSON, default=list)
    superseded_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("certificates.id"))
    # indexed: the dashboard's data version reads their count and latest (dashboard.validity_version)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    revoked_reason: Mapped[str | None] = mapped_column(sa.Text)
    suspended_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    suspended_reason: Mapped[str | None] = mapped_column(sa.Text)
    # Art. 221: the day the Prefecto (or a delegate) countersigned; None while pending or for a kind not reviewed.
    # `countersign_due_on`: issued at the closing, pending, the last day of the practice's term (then suspended).
    countersigned_on: Mapped[date | None] = mapped_column(sa.Date)
    countersign_due_on: Mapped[date | None] = mapped_column(sa.Date)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    vessel: Mapped[Vessel] = relationship()
    inspection: Mapped[Inspection] = relationship()
    replaces: Mapped[Certificate | None] = relationship(remote_side=[id], foreign_keys=[replaces_id])


class Application(db.Model):
    """A solicitud de inspección (art. 222): who applied, when (the office date), for which certificate.

    One pending application per vessel and kind is a fact of the schema (partial unique index).
    """

    __tablename__ = "applications"
    __table_args__ = (
        sa.Index("uq_applications_pending", "vessel_id", "kind", unique=True,
                 sqlite_where=sa.text("status = 'pending'"), postgresql_where=sa.text("status = 'pending'")),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    vessel_id: Mapped[int] = mapped_column(sa.ForeignKey("vessels.id"), index=True)
    kind: Mapped[str] = mapped_column(_enum("application_kind", KINDS))
    port: Mapped[str] = mapped_column(sa.String(120))
    preferred_on: Mapped[date] = mapped_column(sa.Date)
    applied_on: Mapped[date] = mapped_column(sa.Date)  # the office's date (art. 222 counts days there)
    applied_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    status: Mapped[str] = mapped_column(_enum("application_status", APPLICATION_STATUSES), default="pending", index=True)
    inspection_id: Mapped[int | None] = mapped_column(sa.ForeignKey("inspections.id"))
    # The certificate this application renews (None: the vessel's first of its kind) and its deadline.
    certificate_id: Mapped[int | None] = mapped_column(sa.ForeignKey("certificates.id"))
    apply_by: Mapped[date | None] = mapped_column(sa.Date)
    late: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    vessel: Mapped[Vessel] = relationship()
    fines: Mapped[list[FineAssessment]] = relationship(back_populates="application", order_by="FineAssessment.id")


class FineAssessment(db.Model):
    """A fine or surcharge, kept with its article and reason; waived only with one. Of a late application
    (arts. 204, 225), of an inspection that found the plans' provisions unmet (art. 232), or of an arqueo of
    a vessel found unmeasured (art. 200).

    "Por cada buque y por cada vencimiento" (art. 204): one of each code per certificate expiry; one of each
    code per inspection and per arqueo.
    """

    __tablename__ = "fine_assessments"
    __table_args__ = (sa.UniqueConstraint("certificate_id", "code", name="uq_fine_assessments_certificate_code"),
                      sa.UniqueConstraint("inspection_id", "code", name="uq_fine_assessments_inspection_code"),
                      sa.UniqueConstraint("arqueo_id", "code", name="uq_fine_assessments_arqueo_code"))
    id: Mapped[int] = mapped_column(primary_key=True)
    application_id: Mapped[int | None] = mapped_column(sa.ForeignKey("applications.id"), index=True)
    inspection_id: Mapped[int | None] = mapped_column(sa.ForeignKey("inspections.id"))
    arqueo_id: Mapped[int | None] = mapped_column(sa.ForeignKey("arqueos.id"))
    vessel_id: Mapped[int] = mapped_column(sa.ForeignKey("vessels.id"), index=True)
    certificate_id: Mapped[int | None] = mapped_column(sa.ForeignKey("certificates.id"))
    code: Mapped[str] = mapped_column(sa.String(40))
    source: Mapped[str] = mapped_column(sa.String(120))
    article: Mapped[str] = mapped_column(sa.String(20))
    amount: Mapped[Decimal] = mapped_column(sa.Numeric(14, 2, asdecimal=True))
    reason_es: Mapped[str] = mapped_column(sa.Text)
    reason_en: Mapped[str] = mapped_column(sa.Text)
    assessed_on: Mapped[date] = mapped_column(sa.Date)
    waived_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    waived_by_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"))
    waived_reason: Mapped[str | None] = mapped_column(sa.Text)

    application: Mapped[Application | None] = relationship(back_populates="fines")
    waived_by: Mapped[User | None] = relationship(foreign_keys=[waived_by_id])


class Arqueo(db.Model):
    """A measurement of a vessel's tonnage (arqueo, arts. 194, 195, 198): the dimensions taken, the tonnage they
    give and the day, as the register of art. 197 keeps them; its fee is art. 199's, by that tonnage."""

    __tablename__ = "arqueos"
    id: Mapped[int] = mapped_column(primary_key=True)
    vessel_id: Mapped[int] = mapped_column(sa.ForeignKey("vessels.id"), index=True)
    measured_on: Mapped[date] = mapped_column(sa.Date)  # art. 197: "fecha en que se arquea" (office date)
    measured_by_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))  # art. 197: "nombre del arqueador"
    hull_material: Mapped[str] = mapped_column(_enum("hull_material", HULLS))
    length_m: Mapped[Decimal] = mapped_column(sa.Numeric(8, 2, asdecimal=True))
    beam_m: Mapped[Decimal] = mapped_column(sa.Numeric(8, 2, asdecimal=True))
    girth_m: Mapped[Decimal] = mapped_column(sa.Numeric(8, 2, asdecimal=True))
    gross_tonnage: Mapped[Decimal] = mapped_column(sa.Numeric(16, 6, asdecimal=True))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    vessel: Mapped[Vessel] = relationship()
    measured_by: Mapped[User] = relationship()
    fines: Mapped[list[FineAssessment]] = relationship(order_by="FineAssessment.id")


class Notice(db.Model):
    """A reminder for one user (reminders.py), kept once per recipient, kind, subject and date; emailed, or in-app only.

    The unique key is what makes a notice sent once however often, or however concurrently, the daily
    command runs: the row is inserted before the email is sent. `email_to` None: in-app only.
    """

    __tablename__ = "notices"
    __table_args__ = (sa.UniqueConstraint("user_id", "kind", "subject_id", "due_on", name="uq_notices_key"),
                      sa.Index("ix_notices_user_read", "user_id", "read_at"))
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    kind: Mapped[str] = mapped_column(sa.String(40))  # apply_by_30, apply_by_7, expired, deficiency_due, ...
    subject_id: Mapped[int]  # the certificate, deficiency, detention, fine or inspection the kind names
    due_on: Mapped[date] = mapped_column(sa.Date)  # the date the notice is about (apply_by, due date, ...)
    vessel_id: Mapped[int | None] = mapped_column(sa.ForeignKey("vessels.id"))
    params: Mapped[dict] = mapped_column(sa.JSON, default=dict)  # the text's values, rendered in the reader's language
    created_on: Mapped[date] = mapped_column(sa.Date)  # the office date of the run that found it
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    email_to: Mapped[str | None] = mapped_column(sa.String(200))
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)  # a run is sending it (a lease)
    attempts: Mapped[int] = mapped_column(default=0)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(sa.String(300))
    read_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ClientRequest(db.Model):
    """The first result of a tablet write, kept by its client_id so a retry gets the same answer."""

    __tablename__ = "client_requests"
    client_id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    scope: Mapped[str] = mapped_column(sa.String(80))
    body_hash: Mapped[str] = mapped_column(sa.String(64))
    status_code: Mapped[int]
    response: Mapped[dict] = mapped_column(sa.JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DataStamp(db.Model):
    """A random stamp per kind of data, redrawn in the same transaction as every write of that kind
    (readcache.py): a process's cache keyed on the stamp is never stale, and never fooled by a restore."""

    __tablename__ = "data_stamps"
    name: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    stamp: Mapped[int] = mapped_column(sa.BigInteger)


class AuditEvent(db.Model):
    """Who did what, when, with which client_id; append-only (updates and deletes are refused)."""

    __tablename__ = "audit_events"
    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    user_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"))
    action: Mapped[str] = mapped_column(sa.String(80))
    entity: Mapped[str] = mapped_column(sa.String(40))
    entity_id: Mapped[str] = mapped_column(sa.String(60))
    inspection_id: Mapped[int | None] = mapped_column(sa.ForeignKey("inspections.id"), index=True)
    client_id: Mapped[str | None] = mapped_column(sa.String(36))
    details: Mapped[dict] = mapped_column(sa.JSON, default=dict)

    user: Mapped[User | None] = relationship()


@event.listens_for(AuditEvent, "before_update")
@event.listens_for(AuditEvent, "before_delete")
def _refuse_audit_change(mapper, connection, target):
    """The audit trail is append-only: history that can be edited is not evidence."""
    raise RuntimeError("audit events are append-only")
