#!/usr/bin/env bash
# CI for the Python module (called by .ci/run after `cargo test --workspace`): a virtual
# environment with maturin, NumPy, pytest and Ray; clippy with the `python` feature; the
# module built by `maturin develop`
# with the dev profile at the test profile's optimisation (CARGO_PROFILE_DEV_OPT_LEVEL=2
# makes the two profiles identical, so the workspace crates `cargo test` just built are
# reused from target/ and only pyo3, numpy and this crate compile); then pytest, which also
# runs the `odori` binary that `cargo test --workspace` built.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
venv="$root/target/py-venv"
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    if command -v apt-get >/dev/null 2>&1; then
        apt-get install -y -qq --no-install-recommends python3 python3-venv python3-pip >/dev/null
    fi
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "maturin>=1.5,<2" numpy pytest ray tqdm
# Clippy on the bindings too (`cargo clippy --workspace` builds this crate without its
# `python` feature): PyO3's build script needs an interpreter, the venv's. A check build
# links nothing, so no libpython is needed.
PYO3_PYTHON="$venv/bin/python" cargo clippy -p odori-python --features python --all-targets -- -D warnings
export CARGO_PROFILE_DEV_OPT_LEVEL=2
# maturin develop installs into the active environment.
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop -q
"$venv/bin/python" -m pytest -q tests
