"""The office's clock: the one place that reads the time, at the request or command boundary.

The law's days are the office's days: a certificate issued at 22:30 in Asunción is dated that day,
though UTC already says tomorrow. A view or command takes `office_now()` (or `office_today()`) once
and passes the values down as `now` and `today`; nothing below reads a clock. Timestamps stay aware
UTC (`*_at`); only dates and the times shown to people are local to `OFFICE_TZ`.

The zone rules come from the `tzdata` package, not the machine: Paraguay keeps UTC−3 all year since
October 2024, which an older system database does not know.
"""
from datetime import date, datetime, timezone
from functools import cache
from importlib import resources
from zoneinfo import ZoneInfo

from flask import current_app

DEFAULT_ZONE = "America/Asuncion"
CITY_NAMES = {"America/Asuncion": "Asunción"}  # the zone key spells it without the accent


class UnknownZone(ValueError):
    """An office time zone that the tzdata package does not have."""


@cache
def _package_zones() -> frozenset[str]:
    """Every zone key the installed tzdata package ships."""
    return frozenset(resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8").split())


@cache
def zone_named(key: str) -> ZoneInfo:
    """The IANA zone `key` with the tzdata package's rules; UnknownZone when there is none."""
    if key not in _package_zones():
        raise UnknownZone(f"BALIZA_OFFICE_TZ: unknown time zone {key!r} (an IANA name such as {DEFAULT_ZONE!r})")
    with resources.files("tzdata.zoneinfo").joinpath(*key.split("/")).open("rb") as fh:
        return ZoneInfo.from_file(fh, key=key)


def system_now() -> datetime:
    """The machine's clock as aware UTC: the only clock read (tests replace this one function)."""
    return datetime.now(timezone.utc)


def office_zone() -> ZoneInfo:
    """The office's zone (`OFFICE_TZ`), checked when the app was created."""
    return zone_named(current_app.config["OFFICE_TZ"])


def office_now() -> datetime:
    """This moment as aware UTC, read once at a request or command and passed down as `now`."""
    return system_now()


def local_date_at(moment: datetime, zone: ZoneInfo) -> date:
    """The calendar date on the zone's wall clock at `moment` (22:30 in Asunción is still that day)."""
    return moment.astimezone(zone).date()


def office_date(moment: datetime) -> date:
    """The office's calendar date at `moment`: the `today` of the law for that instant."""
    return local_date_at(moment, office_zone())


def office_today() -> date:
    """The office's date now, read once at a request or command and passed down as `today`."""
    return office_date(office_now())


def zone_city(zone: ZoneInfo) -> str:
    """The zone's city as people write it ('Asunción'), to say whose clock a time is on."""
    return CITY_NAMES.get(zone.key) or zone.key.rsplit("/", 1)[-1].replace("_", " ")
