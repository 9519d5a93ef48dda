"""odori.render and odori.bake against the `odori` command line given the same options.

Evidence: the command line binary is run as a separate process on the same inputs; a PNG
the module writes must decode (a PNG decoder in conftest, no odori code) to the binary's
pixels exactly, the two files' bytes included; an MP4's frame count and size are read from
its boxes (conftest's reader) and compared with the count the range and rate give by
arithmetic; a baked VMD must equal the binary's byte for byte. Both sides draw with the CPU
rasteriser (backend cpu) so the comparison does not depend on which GPU driver the machine
has."""

import os
import re
import subprocess
import sys

import pytest

import odori
from conftest import mp4_video_track, odori_bin, png_pixels, physics_required, shared

GENE = "gene/Gene_light.pmx"
MIKU = "miku_v2/miku_v2.pmd"
WAVEFILE = "wavefile/wavefile_v2.vmd"
HAPPY = "gene/motion/01_happy.vmd"


def cli(*args):
    run = subprocess.run([str(odori_bin()), *map(str, args)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stderr


def test_render_png_equals_the_command_line(tmp_path):
    model, motion = shared(GENE), shared(WAVEFILE)
    opts = ["--range", "40", "--size", "96x72", "--backend", "cpu", "--settle", "0"]
    cli("render", model, motion, *opts, "-o", tmp_path / "cli.png")
    report = odori.render(model, motion, out=tmp_path / "py.png", range=40, size=(96, 72),
                          backend="cpu", settle=0)
    assert report["frames"] == 1 and report["requested"] == 1
    want = png_pixels(tmp_path / "cli.png")
    got = png_pixels(tmp_path / "py.png")
    assert got[:3] == want[:3] and got[:2] == (96, 72)
    assert got[3] == want[3], "pixels differ from odori render's"
    assert (tmp_path / "py.png").read_bytes() == (tmp_path / "cli.png").read_bytes()
    # Not a blank frame: the model covers a good share of the picture.
    px = got[3]
    corner = px[:got[2]]
    differing = sum(px[i:i + got[2]] != corner for i in range(0, len(px), got[2]))
    assert differing > 96 * 72 // 20, differing

    # Loaded objects give the same picture; another frame gives another one (the comparison
    # above can fail).
    m = odori.Model.load(model)
    odori.render(m, odori.Motion.load(m, motion), out=tmp_path / "obj.png", range="40",
                 size="96x72", backend="cpu", settle=0)
    assert png_pixels(tmp_path / "obj.png")[3] == want[3]
    odori.render(m, motion, out=tmp_path / "other.png", range=400, size=(96, 72), backend="cpu",
                 settle=0)
    assert png_pixels(tmp_path / "other.png")[3] != want[3]


def test_two_dancers_and_a_camera_equal_the_command_line(tmp_path):
    """Lists of models and motions are the command line's MODEL MOTION MODEL MOTION.

    Pixel for pixel: this test found the CPU rasteriser giving a later model's texture the
    mips of an earlier model's freed image at the same address (renders varied from call to
    call inside one process, 4 of 6 differing); fixed in odori-render's cpu/mod.rs."""
    gene, miku, wave = shared(GENE), shared(MIKU), shared(WAVEFILE)
    camera = shared("wavefile/wavefile_camera.vmd")
    cli("render", gene, wave, miku, wave, "--camera", camera, "--range", "120", "--size", "96x72",
        "--backend", "cpu", "--no-physics", "-o", tmp_path / "cli.png")
    odori.render([odori.Model.load(gene), miku], [wave, [wave]], camera=camera, range=120,
                 size=(96, 72), backend="cpu", physics=False, out=tmp_path / "py.png")
    got, want = png_pixels(tmp_path / "py.png"), png_pixels(tmp_path / "cli.png")
    assert got[:2] == (96, 72) and got[3] == want[3]
    # Again in this process (where the freed-address reuse showed), and another frame
    # differs (the comparison can fail).
    for frame in [120, 120, 400]:
        odori.render([gene, miku], [wave, wave], camera=camera, range=frame, size=(96, 72),
                     backend="cpu", physics=False, out=tmp_path / "again.png")
        assert (png_pixels(tmp_path / "again.png")[3] == want[3]) == (frame == 120), frame
    with pytest.raises(ValueError, match="2 models but 1 motions"):
        odori.render([gene, miku], [wave], out=tmp_path / "x.png")


def test_render_mp4_frames_and_size(tmp_path):
    model, motion = shared(GENE), shared(WAVEFILE)
    out = tmp_path / "clip.mp4"
    seen = []
    report = odori.render(model, motion, out=out, range=(0, 9), fps=60, size=(64, 48),
                          backend="cpu", fast=True, progress=lambda n, total: seen.append((n, total)))
    # MMD frames 0 to 9 inclusive at 60 fps: 0, 0.5, ..., 9.0.
    assert report["frames"] == 19 and report["requested"] == 19
    assert seen[-1] == (19, 19) and len(seen) == 19
    assert mp4_video_track(out) == {"width": 64, "height": 48, "frames": 19}
    odori.render(model, motion, out=out, range="5:", size=(64, 48), backend="cpu", fast=True,
                 physics=False, settle=0)
    last = odori.Motion.load(odori.Model.load(model), motion).frame_count - 1
    assert mp4_video_track(out)["frames"] == last - 5 + 1


def test_progress_exception_stops_the_render(tmp_path):
    def stop(n, total):
        if n == 3:
            raise KeyboardInterrupt("enough")

    with pytest.raises(KeyboardInterrupt, match="enough"):
        odori.render(shared(GENE), shared(WAVEFILE), out=tmp_path / "stopped.mp4", range=(0, 60),
                     size=(64, 48), backend="cpu", fast=True, physics=False, progress=stop)
    # The frames done so far are kept, as after Ctrl-C on the command line.
    frames = mp4_video_track(tmp_path / "stopped.mp4")["frames"]
    assert 3 <= frames < 61, frames


def test_bake_equals_the_command_line(tmp_path):
    model, motion = shared(GENE), shared(HAPPY)
    try:
        cli("bake", model, motion, "-o", tmp_path / "cli.vmd")
    except AssertionError as e:
        if "ODORI_NO_BULLET" in str(e) and not physics_required():
            pytest.skip("no physics engine in this build")
        raise
    m = odori.Model.load(model)
    report = odori.bake(m, odori.Motion.load(m, motion), tmp_path / "py.vmd")
    want = (tmp_path / "cli.vmd").read_bytes()
    got = (tmp_path / "py.vmd").read_bytes()
    assert report["bytes"] == len(got) and report["bones"] > 0
    assert got == want
    cli("bake", model, motion, "--tolerance", "0", "-o", tmp_path / "cli0.vmd")
    odori.bake(model, motion, tmp_path / "py0.vmd", tolerance=0)
    every = (tmp_path / "py0.vmd").read_bytes()
    assert every == (tmp_path / "cli0.vmd").read_bytes()
    assert len(every) > len(got), "tolerance 0 keeps more keys than the default"


def test_bad_paths_and_options_raise(tmp_path):
    missing = tmp_path / "nope.pmx"
    with pytest.raises(odori.OdoriError, match=re.escape(str(missing))):
        odori.render(missing, out=tmp_path / "a.png")
    with pytest.raises(odori.OdoriError, match=r"a\.avi: odori does not write \.avi"):
        odori.render(shared(GENE), out=tmp_path / "a.avi")
    with pytest.raises(odori.OdoriError, match="does not exist"):
        odori.render(shared(GENE), out=tmp_path / "no" / "a.mp4")
    with pytest.raises(odori.OdoriError, match="even sides"):
        odori.render(shared(GENE), out=tmp_path / "a.mp4", size=(65, 48))
    with pytest.raises(odori.OdoriError, match="fps=31"):
        odori.render(shared(GENE), out=tmp_path / "a.mp4", fps=31)
    with pytest.raises(odori.OdoriError, match="before the start"):
        odori.render(shared(GENE), out=tmp_path / "a.mp4", range=(9, 3))
    with pytest.raises(odori.OdoriError, match="backend"):
        odori.render(shared(GENE), out=tmp_path / "a.png", backend="vulkan")
    cut = tmp_path / "cut.vmd"
    cut.write_bytes(shared(WAVEFILE).read_bytes()[:5000])
    with pytest.raises(odori.OdoriError, match=re.escape(str(cut)) + ".*offset"):
        odori.render(shared(GENE), cut, out=tmp_path / "a.png", backend="cpu")
    gene, miku = odori.Model.load(shared(GENE)), odori.Model.load(shared(MIKU))
    with pytest.raises(odori.OdoriError, match="another model"):
        odori.render(gene, odori.Motion.load(miku, shared(HAPPY)), out=tmp_path / "a.png")
    with pytest.raises(odori.OdoriError, match="tolerance=2:"):
        odori.bake(gene, shared(HAPPY), tmp_path / "b.vmd", tolerance=2)
    with pytest.raises(odori.OdoriError, match=re.escape(str(tmp_path / "none.vmd"))):
        odori.bake(gene, tmp_path / "none.vmd", tmp_path / "b.vmd")
    with pytest.raises(odori.OdoriError, match="bake needs a VMD"):
        odori.bake(gene, shared("vpd/" + _a_vpd()), tmp_path / "b.vmd")
    assert not list(tmp_path.glob("a.*")) and not (tmp_path / "b.vmd").exists()


def _a_vpd():
    base = shared("vpd")
    return sorted(p.name for p in base.glob("*.vpd"))[0]


def test_a_render_without_xdg_runtime_dir_prints_no_error(tmp_path):
    """A server, a container or a Ray worker has no XDG_RUNTIME_DIR. Rendering through
    wgpu's Vulkan there used to print libwayland's "error: XDG_RUNTIME_DIR is invalid or not
    set" twice, from Mesa's device-select layer asking for a Wayland compositor, although the
    render succeeded. The library's off-screen instance leaves out the Wayland surface
    extension that makes the layer ask. Evidence: the stderr of a fresh interpreter, with
    neither that variable nor the layer's off switch (NODEVICE_SELECT) set, and a PNG written.
    backend="gpu" forces the Vulkan path (lavapipe in CI)."""
    model, motion = shared(GENE), shared(WAVEFILE)
    out = tmp_path / "gpu.png"
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "NODEVICE_SELECT")}
    code = (f"import odori; odori.render({str(model)!r}, {str(motion)!r}, out={str(out)!r}, "
            "range=40, size=(96, 72), backend='gpu', settle=0)")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if run.returncode != 0 and "no GPU adapter" in run.stderr \
            and os.environ.get("ODORI_REQUIRE_GPU") != "1":
        print("SKIPPED: no wgpu adapter")
        pytest.skip("no wgpu adapter")
    assert run.returncode == 0, run.stderr[-3000:]
    assert png_pixels(out)[:2] == (96, 72)
    assert "XDG_RUNTIME_DIR" not in run.stderr, run.stderr
