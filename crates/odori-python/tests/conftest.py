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
