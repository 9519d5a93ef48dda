"""odori.Project: MikuMikuDance's sample project read from Python, against the command line.

Evidence: ``odori info PROJECT --json`` (the binary, a separate process) lists the same models
and accessories with the same files found or missing; a rendered frame of the project equals
the binary's ``odori render PROJECT.pmm`` PNG pixel for pixel (both on the CPU rasteriser),
decoded by conftest's PNG reader (no odori code)."""

import json
import subprocess

import odori
from conftest import odori_bin, png_pixels, shared

SAMPLE = "mmd-sample/UserFile/サンプル（きしめんAllStar).pmm"


def test_project_lists_what_the_command_line_lists():
    path = shared(SAMPLE)
    p = odori.Project.load(path)
    run = subprocess.run([str(odori_bin()), "info", str(path), "--json"], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    info = json.loads(run.stdout)
    assert len(p.models) == 11 and len(p.accessories) == 29
    # The binary's lines read "NAME: STORED (found PATH | MISSING); …".
    assert [f'{m["name"]}: {m["stored"]} (found {m["path"]})' for m in p.models] == \
        [line.split(";")[0] for line in info["models"]]
    assert [f'{a["name"]}: {a["stored"]} (MISSING)' for a in p.accessories] == \
        [line.split(";")[0] for line in info["accessories"]]
    assert sum("not found" in w for w in p.warnings) == 29
    assert p.size == (512, 288)
    assert p.camera["camera_keys"] > 1
    assert "11 models (0 missing)" in repr(p)


def test_project_render_equals_the_command_line(tmp_path):
    path = shared(SAMPLE)
    opts = ["--range", "120", "--size", "128x72", "--backend", "cpu", "--settle", "0"]
    run = subprocess.run([str(odori_bin()), "render", str(path), *opts, "-o",
                          str(tmp_path / "cli.png")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    report = odori.Project.load(path).render(out=tmp_path / "py.png", range=120, size=(128, 72),
                                             backend="cpu", settle=0)
    assert report["frames"] == 1
    assert any("stage01.x not found" in m for m in report["messages"])
    assert png_pixels(tmp_path / "py.png") == png_pixels(tmp_path / "cli.png")
