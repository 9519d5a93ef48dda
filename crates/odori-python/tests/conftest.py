"""Shared helpers for the Python tests: the real assets under ../shared (skip honestly
outside CI, fail under ODORI_REQUIRE_SHARED=1) and the `odori` command line binary."""

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]  # the workspace root


def _require(var: str) -> bool:
    return os.environ.get(var) == "1"


def shared(rel: str) -> Path:
    """A file under ../shared/assets, or SKIPPED (a failure under ODORI_REQUIRE_SHARED=1)."""
    base = Path(os.environ.get("ODORI_SHARED", ROOT.parent / "shared")) / "assets"
    p = base / rel
    if not p.exists():
        msg = f"{rel} not found under ../shared (real-asset test)"
        if _require("ODORI_REQUIRE_SHARED"):
            pytest.fail(f"{msg}, and ODORI_REQUIRE_SHARED=1 forbids skipping")
        print(f"SKIPPED: {msg}")
        pytest.skip(msg)
    return p


def odori_bin() -> Path:
    """The `odori` binary the workspace built (ODORI_BIN, target/debug or target/release)."""
    for c in [os.environ.get("ODORI_BIN"), ROOT / "target/debug/odori", ROOT / "target/release/odori",
              shutil.which("odori")]:
        if c and Path(c).exists():
            return Path(c)
    msg = "the odori binary is not built (cargo build -p odori)"
    if _require("ODORI_REQUIRE_SHARED"):
        pytest.fail(msg)
    print(f"SKIPPED: {msg}")
    pytest.skip(msg)


def physics_required() -> bool:
    return _require("ODORI_REQUIRE_PHYSICS")


def mp4_video_track(path) -> dict:
    """The video track of an MP4, read from its boxes here (no odori code, no ffprobe):
    ``width``/``height`` from the track header (16.16 fixed point) and ``frames`` from the
    sample size table's count. Fails when the file has no video track."""
    data = Path(path).read_bytes()

    def boxes(start, end):
        at = start
        while at + 8 <= end:
            size = int.from_bytes(data[at:at + 4], "big")
            kind = data[at + 4:at + 8].decode("latin-1")
            head = 8
            if size == 1:
                size, head = int.from_bytes(data[at + 8:at + 16], "big"), 16
            elif size == 0:
                size = end - at
            assert size >= head, f"{path}: bad box size at {at}"
            yield kind, at + head, at + size
            at += size

    def child(start, end, kind):
        return next(((s, e) for k, s, e in boxes(start, end) if k == kind), None)

    moov = child(0, len(data), "moov")
    assert moov, f"{path}: no moov box"
    for kind, s, e in boxes(*moov):
        if kind != "trak":
            continue
        mdia = child(s, e, "mdia")
        hdlr = child(*mdia, "hdlr")
        if data[hdlr[0] + 8:hdlr[0] + 12] != b"vide":
            continue
        tkhd = child(s, e, "tkhd")
        version = data[tkhd[0]]
        wh = tkhd[0] + (76 if version == 0 else 88)  # after the 3x3 matrix
        width = int.from_bytes(data[wh:wh + 4], "big") >> 16
        height = int.from_bytes(data[wh + 4:wh + 8], "big") >> 16
        stbl = child(*child(*mdia, "minf"), "stbl")
        stsz = child(*stbl, "stsz")
        frames = int.from_bytes(data[stsz[0] + 8:stsz[0] + 12], "big")
        return {"width": width, "height": height, "frames": frames}
    raise AssertionError(f"{path}: no video track")


def png_pixels(path):
    """An 8-bit RGBA or RGB PNG decoded here (zlib and the five row filters, no odori code):
    ``(width, height, channels, bytes)``."""
    import struct
    import zlib

    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    at, idat = 8, b""
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), f"{path}: depth {depth} colour {color}"
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    ch = 4 if color == 6 else 3
    raw, stride = zlib.decompress(idat), w * ch
    out, prev = bytearray(), bytearray(stride)
    for y in range(h):
        f, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - ch] if i >= ch else 0
            b, c = prev[i], prev[i - ch] if i >= ch else 0
            if f == 1:
                row[i] = (row[i] + a) & 255
            elif f == 2:
                row[i] = (row[i] + b) & 255
            elif f == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += row
        prev = row
    return w, h, ch, bytes(out)

