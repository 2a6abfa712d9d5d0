"""Marks on the defect (issue 24): the layer drawn over a photo, its canonical bytes and SHA-256, and its shapes placed
on a picture of any size (the pages' SVG, the report's PDF). The photo's bytes are never touched: a layer is apart.

Format version 1 (docs/api.md), a JSON object:
  {"version": 1, "photo_sha256": "<the photo's SHA-256>", "shapes": [...]}, each shape one of
  {"kind": "circle", "x", "y", "rx", "ry"}  centre and radii (an ellipse when the inspector drags a long one)
  {"kind": "arrow", "x1", "y1", "x2", "y2"} from the tail to the head, which points at the defect
  {"kind": "label", "x", "y", "text"}       the text's left end, on its baseline
Coordinates are fractions 0..1 of the picture's width (x) and height (y) from its top-left corner, so the
thumbnail, the display copy and the original all carry the same marks; at most MAX_SHAPES shapes, a label at
most LABEL_CHARS characters. The hash is of the canonical bytes: keys sorted, no spaces, coordinates rounded
to PLACES decimals, UTF-8; naming the photo's hash inside the layer links the two.
"""
import hashlib
import json
import math

VERSION = 1
MAX_SHAPES = 20
LABEL_CHARS = 40
PLACES = 4
KINDS = ("circle", "arrow", "label")
COORDINATES = {"circle": ("x", "y", "rx", "ry"), "arrow": ("x1", "y1", "x2", "y2"), "label": ("x", "y")}
COLOUR = (230, 30, 30)  # one red for every mark: it reads over sea, hull and rust alike
STROKE = 0.006  # the line's width, a fraction of the picture's long side
LETTER = 0.035  # a label's letter height, a fraction of the picture's long side
HEAD = 0.035  # an arrow head's barbs, a fraction of the picture's long side


def normalised(layer: dict) -> dict:
    """The layer as it is kept and hashed: known keys only, coordinates rounded, labels trimmed."""
    shapes = []
    for shape in layer["shapes"]:
        kept = {"kind": shape["kind"]}
        kept.update({key: round(float(shape[key]), PLACES) for key in COORDINATES[shape["kind"]]})
        if shape["kind"] == "label":
            kept["text"] = shape["text"].strip()
        shapes.append(kept)
    return {"version": VERSION, "photo_sha256": layer["photo_sha256"], "shapes": shapes}


def canonical_bytes(layer: dict) -> bytes:
    """The bytes the layer's SHA-256 is of: the same layer gives the same bytes in any process."""
    return json.dumps(normalised(layer), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def layer_sha256(layer: dict) -> str:
    """The layer's own SHA-256 (hex), beside the photo's it names."""
    return hashlib.sha256(canonical_bytes(layer)).hexdigest()


def placed(layer: dict, width: float, height: float) -> list[dict]:
    """The layer's shapes in the units of a picture `width` × `height` (pixels, millimetres), ready to draw: a
    circle's centre and radii, an arrow's line and its head's two barbs, a label's anchor and letter height."""
    side = max(width, height)
    out = []
    for shape in layer.get("shapes", []):
        if shape["kind"] == "circle":
            out.append({"kind": "circle", "cx": shape["x"] * width, "cy": shape["y"] * height,
                        "rx": shape["rx"] * width, "ry": shape["ry"] * height})
        elif shape["kind"] == "arrow":
            x1, y1, x2, y2 = shape["x1"] * width, shape["y1"] * height, shape["x2"] * width, shape["y2"] * height
            out.append({"kind": "arrow", "x1": x1, "y1": y1, "x2": x2, "y2": y2, "barbs": _barbs(x1, y1, x2, y2, side)})
        else:
            out.append({"kind": "label", "x": shape["x"] * width, "y": shape["y"] * height, "text": shape["text"],
                        "size": LETTER * side})
    return out


def _barbs(x1: float, y1: float, x2: float, y2: float, side: float) -> list[tuple[float, float]]:
    """The two ends of an arrow head's barbs at (x2, y2), 30° either side of the shaft."""
    angle = math.atan2(y2 - y1, x2 - x1)
    length = HEAD * side
    return [(x2 - length * math.cos(angle + turn), y2 - length * math.sin(angle + turn)) for turn in (0.5236, -0.5236)]


def stroke_width(width: float, height: float) -> float:
    """The marks' line width on a picture of this size."""
    return STROKE * max(width, height)


def overlay(layer: dict, width: int, height: int) -> dict:
    """What a page's SVG over a copy of the picture needs (templates/_marked_photo.html): the viewBox is the
    original's size, stretched over the copy; shapes placed, the line width and the colour."""
    return {"width": width, "height": height, "shapes": placed(layer, width, height),
            "stroke": stroke_width(width, height), "colour": "#%02x%02x%02x" % COLOUR}

