"""Where and when a photo was taken (issue 24): the position's source, the reviewer's flags, the ports, the stamp."""
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from inspection.media.photos import process_photo
from inspection.media.places import (
    PlaceRules,
    Position,
    distance_m,
    parse_ports,
    photo_flags,
    photo_position,
    port_key,
    port_position,
    river_ports,
    stamp_lines,
)
from tests.media_samples import make_exif, make_jpeg

ASUNCION = (-25.280, -57.636)
START = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
END = START + timedelta(hours=2)
RULES = PlaceRules(far_from_port_m=15_000, time_tolerance=timedelta(minutes=30))
ABOARD = Position(-25.2805, -57.6355, 8.0, "device")  # the bahía de Asunción, some 60 m from the port's point
CONCEPCION = Position(-23.406, -57.44, 20.0, "device")  # some 210 km up the river


@pytest.mark.parametrize("device, exif, expected", [
    ((-25.28, -57.63, 12.5), (-23.4, -57.4), Position(-25.28, -57.63, 12.5, "device")),  # the device's comes first
    ((-25.28, -57.63, None), None, Position(-25.28, -57.63, None, "device")),
    ((None, None, None), (-23.4, -57.4), Position(-23.4, -57.4, None, "exif")),  # no fix: the photo's EXIF
    (None, (-23.4, -57.4), Position(-23.4, -57.4, None, "exif")),
    ((-25.28, None, 5.0), (None, None), Position()),  # half a fix is none
    ((-25.28, -57.63, 6.0, "exif"), None, Position(-25.28, -57.63, 6.0, "exif")),  # the tablet read the camera's
    ((-25.28, -57.63, None, "device"), (-23.4, -57.4), Position(-25.28, -57.63, None, "device")),
    ((-25.28, -57.63, None, None), None, Position(-25.28, -57.63, None, "device")),  # undeclared: the device's
    (None, None, Position(None, None, None, "none")),
])
def test_the_device_position_comes_first_then_the_exif_then_none(device, exif, expected):
    assert photo_position(device, exif) == expected


def test_a_photo_without_a_device_fix_takes_its_exif_gps_position():
    """What process_photo reads from the camera's EXIF GPS is the fallback store_photo hands to photo_position."""
    processed = process_photo(make_jpeg((640, 480), exif=make_exif(1, gps=(-23.406, -57.44))))
    assert (round(processed.latitude, 4), round(processed.longitude, 4)) == (-23.406, -57.44)
    position = photo_position((None, None, None), (processed.latitude, processed.longitude))
    assert position.source == "exif" and position.accuracy_m is None
    assert photo_position(None, (None, None)).source == "none"  # a photo without GPS, from a device without a fix


def test_distances_are_great_circle_metres():
    assert distance_m(ASUNCION, ASUNCION) == 0
    assert distance_m(ASUNCION, (-26.280, -57.636)) == pytest.approx(111_195, rel=1e-3)  # one degree of latitude
    assert distance_m(ASUNCION, (CONCEPCION.latitude, CONCEPCION.longitude)) == pytest.approx(210_000, rel=0.05)


@pytest.mark.parametrize("position, port, taken_at, span, flags", [
    (ABOARD, ASUNCION, START + timedelta(minutes=5), (START, END), []),
    (CONCEPCION, ASUNCION, START + timedelta(minutes=5), (START, END), ["far_from_port"]),
    (CONCEPCION, None, START, (START, END), []),  # a port without coordinates: no distance flag
    (Position(), ASUNCION, START, (START, END), []),  # no position: nothing to measure
    (ABOARD, ASUNCION, START - timedelta(minutes=29), (START, END), []),  # within the clock's tolerance
    (ABOARD, ASUNCION, START - timedelta(minutes=31), (START, END), ["outside_inspection_time"]),
    (ABOARD, ASUNCION, END + timedelta(hours=3), (START, END), ["outside_inspection_time"]),
    (ABOARD, ASUNCION, END + timedelta(hours=3), (START, None), []),  # an open end: only the start bounds it
    (CONCEPCION, ASUNCION, START - timedelta(days=1), (START, END), ["far_from_port", "outside_inspection_time"]),
    (ABOARD, ASUNCION, None, (START, END), []),  # no capture time
    (ABOARD, ASUNCION, START - timedelta(days=1), None, []),  # no span (a repair's evidence)
], ids=["aboard", "far", "unknown-port", "no-position", "tolerated", "before", "after", "open-end", "both",
        "no-time", "no-span"])
def test_the_flags_point_at_a_far_or_untimely_photo(position, port, taken_at, span, flags):
    assert photo_flags(position, port, taken_at, span, RULES) == flags


def test_the_far_distance_is_the_offices_setting():
    villeta = Position(-25.510, -57.565, 10.0, "device")  # ~26 km down the river
    assert photo_flags(villeta, ASUNCION, None, None, RULES) == ["far_from_port"]
    assert photo_flags(villeta, ASUNCION, None, None, PlaceRules(far_from_port_m=30_000)) == []


@pytest.mark.parametrize("written, found", [
    ("Asunción", ASUNCION), ("ASUNCION", ASUNCION), ("  puerto de asunción ", ASUNCION), ("Asunción (ANNP)", ASUNCION),
    ("Puerto Casado", (-22.29, -57.935)), ("Corrientes", None), ("", None), (None, None),
])
def test_ports_are_found_by_the_names_people_write(written, found):
    assert port_position(written) == found


def test_the_ports_file_is_valid_and_in_paraguay():
    ports = river_ports()
    assert len(set(ports.values())) >= 15
    for lat, lon in ports.values():  # Paraguay lies within 19°-28° S, 54°-63° W
        assert -28 < lat < -19 and -63 < lon < -54
    assert port_key("Puerto de Concepción") == "concepcion"


@pytest.mark.parametrize("rows, error", [
    ([{"names": ["A"], "latitude": -25.0, "longitude": -57.0}], "needs names"),  # no source
    ([{"names": ["A"], "latitude": "-25", "longitude": -57.0, "source": "x"}], "needs names"),
    ([{"names": ["A"], "latitude": -125.0, "longitude": -57.0, "source": "x"}], "outside the globe"),
    ([{"names": ["Pilar"], "latitude": -26.0, "longitude": -58.0, "source": "x"},
      {"names": ["PILAR"], "latitude": -26.0, "longitude": -58.0, "source": "x"}], "given twice"),
])
def test_a_malformed_ports_file_fails_the_load(rows, error):
    with pytest.raises(ValueError, match=error):
        parse_ports({"port": rows})


ZONE = ZoneInfo("America/Asuncion")


def test_the_stamp_says_vessel_office_time_position_and_flags_in_spanish_then_english():
    photo = {"taken_at": datetime(2026, 12, 1, 13, 5, tzinfo=timezone.utc), "latitude": -23.406, "longitude": -57.44,
             "accuracy_m": 1234.4, "position_source": "device", "flags": ["far_from_port", "outside_inspection_time"]}
    es = stamp_lines(photo, "PY-1234", True, ZONE, "Asunción", "es")
    assert es[0] == ("vessel", "PY-1234 · 1 dic. 2026, 10:05 (hora de Asunción)")  # Asunción's wall clock, UTC−3
    assert es[1] == ("position", "-23.40600, -57.44000 ± 1.234 m (dispositivo)")
    assert es[2:] == [("flag", "Lejos del puerto de la inspección"), ("flag", "Tomada fuera del horario de la inspección")]
    en = stamp_lines(photo, "PY-1234", True, ZONE, "Asunción", "en")
    assert en[1] == ("position", "-23.40600, -57.44000 ± 1,234 m (device)")
    assert [text for kind, text in en if kind == "flag"] == ["Far from the inspection's port",
                                                             "Taken outside the inspection's time"]


def test_the_stamp_says_plainly_when_there_is_no_position_or_no_port():
    photo = {"taken_at": None, "latitude": None, "longitude": None, "accuracy_m": None, "position_source": "none",
             "flags": []}
    lines = stamp_lines(photo, "PY-1", False, ZONE, "Asunción", "es")
    assert lines == [("vessel", "PY-1 · hora de captura desconocida"),
                     ("none", "Sin posición: ni el dispositivo ni la foto la registraron"),
                     ("note", "Puerto sin coordenadas")]
    exif = stamp_lines({**photo, "latitude": -25.28, "longitude": -57.636, "position_source": "exif"}, "PY-1", True,
                       ZONE, "Asunción", "en")
    assert exif[1] == ("position", "-25.28000, -57.63600 (photo's EXIF)")
    assert stamp_lines(photo, "PY-1", False, ZONE, "Asunción", "en")[1:] == [
        ("none", "No position: neither the device nor the photo recorded one"), ("note", "Port without coordinates")]
