"""Where and when a photo was taken, and what a reviewer should look at twice (issue 24): values in, values out.

A photo's position is the one sent with it when there is one (the device's fix, or the camera's EXIF position the
tablet read before re-encoding the photo, declared as such), else the position in the received file's EXIF, else
none; the source is kept with it. Two flags point a reviewer at a photo, never refuse it: taken
farther from the inspection's port than the office's distance, or at a time outside the inspection's
span (with a tolerance for the tablet's clock). Port positions are data (river_ports.toml).
"""
import math
import tomllib
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from inspection.i18n.formats import format_moment, format_number
from inspection.i18n.messages import Msg

PORTS_PATH = Path(__file__).with_name("river_ports.toml")
EARTH_RADIUS_M = 6_371_008.8  # the mean radius (IUGG): haversine distances within 0.5 %
SOURCES = ("device", "exif", "none")
DECLARED_SOURCES = ("device", "exif")  # what a client may say its position is; the server alone concludes "none"
FLAGS = ("far_from_port", "outside_inspection_time")


@dataclass(frozen=True)
class PlaceRules:
    """The office's settings for the flags: how far from the port is far, how much clock drift is forgiven."""

    far_from_port_m: float = 15_000
    time_tolerance: timedelta = timedelta(minutes=30)


@dataclass(frozen=True)
class Position:
    """A photo's position, its accuracy (metres: the device's, or the EXIF's GPSHPositioningError) and its source."""

    latitude: float | None = None
    longitude: float | None = None
    accuracy_m: float | None = None
    source: str = "none"


def photo_position(sent: tuple | None, exif: tuple | None) -> Position:
    """The (lat, lon, accuracy, source) sent with the photo when there is one (source "device" unless it says "exif"),
    else the received file's EXIF (lat, lon), else no position."""
    if sent and sent[0] is not None and sent[1] is not None:
        source = sent[3] if len(sent) > 3 and sent[3] in DECLARED_SOURCES else "device"
        return Position(sent[0], sent[1], sent[2] if len(sent) > 2 else None, source)
    if exif and exif[0] is not None and exif[1] is not None:
        return Position(exif[0], exif[1], None, "exif")
    return Position()


def distance_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The great-circle distance in metres between two (lat, lon) points (haversine)."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


def photo_flags(position: Position, port: tuple[float, float] | None, taken_at: datetime | None,
                span: tuple[datetime | None, datetime | None] | None, rules: PlaceRules) -> list[str]:
    """The flags a reviewer sees on a photo: far from a known port, or captured outside the span (± tolerance).

    No position or an unknown port gives no distance flag; no capture time or no span gives no time flag.
    """
    flags = []
    if port is not None and position.source != "none" \
            and distance_m((position.latitude, position.longitude), port) > rules.far_from_port_m:
        flags.append("far_from_port")
    if taken_at is not None and span is not None:
        start, end = span
        if (start is not None and taken_at < start - rules.time_tolerance) or \
                (end is not None and taken_at > end + rules.time_tolerance):
            flags.append("outside_inspection_time")
    return flags


# --- ports ----------------------------------------------------------------------------------------

def port_key(name: str | None) -> str:
    """A port's name as compared: no accents, case or spacing, and no leading 'Puerto de'."""
    plain = unicodedata.normalize("NFKD", name or "").encode("ascii", "ignore").decode().lower()
    plain = " ".join(plain.replace(",", " ").split())
    return plain.removeprefix("puerto de ").strip()


def parse_ports(data: dict) -> dict[str, tuple[float, float]]:
    """Every name of every port to its (lat, lon); a malformed row, or a name given twice, fails the load."""
    ports = {}
    for n, row in enumerate(data.get("port", []), 1):
        names, lat, lon = row.get("names"), row.get("latitude"), row.get("longitude")
        if not names or not isinstance(lat, float | int) or not isinstance(lon, float | int) or not row.get("source"):
            raise ValueError(f"river_ports.toml: port {n} needs names, latitude, longitude and source")
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise ValueError(f"river_ports.toml: {names[0]} lies outside the globe ({lat}, {lon})")
        for name in names:
            if port_key(name) in ports:
                raise ValueError(f"river_ports.toml: the name {name!r} is given twice")
            ports[port_key(name)] = (float(lat), float(lon))
    return ports


@cache
def river_ports() -> dict[str, tuple[float, float]]:
    """The packaged ports, loaded and checked once per process."""
    with PORTS_PATH.open("rb") as file:
        return parse_ports(tomllib.load(file))


def port_position(name: str | None) -> tuple[float, float] | None:
    """The (lat, lon) of a port named in free text, or None when the file does not know it."""
    return river_ports().get(port_key(name))


# --- the stamp shown beside a photo ----------------------------------------------------------------

SOURCE_WORDS = {"device": Msg("dispositivo"), "exif": Msg("EXIF de la foto")}
FLAG_WORDS = {"far_from_port": Msg("Lejos del puerto de la inspección"),
              "outside_inspection_time": Msg("Tomada fuera del horario de la inspección")}


def stamp_lines(photo: dict, registration: str, port_known: bool, zone, city: str, lang: str) -> list[tuple[str, str]]:
    """The stamp drawn beside a photo (never burned into it): (kind, text) lines of vessel and office time (`zone`,
    whose `city` is named), position with accuracy and source (or plainly none), each flag in words, and a port
    without coordinates. `photo` has the Photo's fields."""
    moment = photo.get("taken_at")
    when = (f"{format_moment(moment, zone, lang)} ({Msg('hora de {city}', city=city).in_language(lang)})" if moment
            else Msg("hora de captura desconocida").in_language(lang))
    lines = [("vessel", f"{registration} · {when}")]
    if photo.get("position_source") in SOURCE_WORDS:
        where = f"{photo['latitude']:.5f}, {photo['longitude']:.5f}"
        if photo.get("accuracy_m") is not None:
            where += f" ± {format_number(round(photo['accuracy_m']), 0, lang)} m"
        lines.append(("position", f"{where} ({SOURCE_WORDS[photo['position_source']].in_language(lang)})"))
    else:
        lines.append(("none", Msg("Sin posición: ni el dispositivo ni la foto la registraron").in_language(lang)))
    lines += [("flag", FLAG_WORDS[flag].in_language(lang)) for flag in photo.get("flags") or [] if flag in FLAG_WORDS]
    if not port_known:
        lines.append(("note", Msg("Puerto sin coordenadas").in_language(lang)))
    return lines
