"""examples/ray_poses.py on a local Ray cluster (2 CPUs, 2 workers) over two shared
models x three shared motions: every .npz it writes equals what one process computes
(the example's own Loader, without Ray), bit for bit, and the summary lists every pair."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import shared

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ray_poses.py"
sys.path.insert(0, str(EXAMPLE.parent))


def linked_folders(tmp_path, motion_files):
    """The example's input folders under tmp_path: models/ with Gene_light.pmx and
    miku_v2.pmd, motions/ with `motion_files` (paths under ../shared/assets), as links."""
    models = tmp_path / "models"
    motions = tmp_path / "motions"
    models.mkdir()
    motions.mkdir()
    for rel in ["gene/Gene_light.pmx", "miku_v2/miku_v2.pmd"]:
        (models / Path(rel).name).symlink_to(shared(rel))
    for rel in motion_files:
        (motions / Path(rel).name).symlink_to(shared(rel))
    return models, motions


def test_ray_example_matches_single_process(tmp_path):
    ray = pytest.importorskip("ray")
    import ray_poses

    # The camera motion beside the dances is no dance: still six pairs, and it is said.
    models, motions = linked_folders(
        tmp_path, ["wavefile/wavefile_v2.vmd", "gene/motion/stand.vmd", "gene/motion/01_happy.vmd",
                   "wavefile/wavefile_camera.vmd"])
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), str(models), str(motions), str(out), "--workers", "2", "--no-progress"],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    print(run.stdout)
    jobs = ray_poses.pairs(models, motions, tmp_path / "single")
    assert len(jobs) == 6
    assert f"6 pairs" in run.stdout
    assert "camera motion(s) skipped, not danced: wavefile_camera.vmd" in run.stderr
    local = ray_poses.Loader()
    (tmp_path / "single").mkdir()
    for model, motion, single in jobs:
        local.pose_pair(model, motion, single, world=False)
        got = np.load(out / Path(single).name)
        want = np.load(single)
        assert sorted(got.files) == sorted(want.files)
        for k in want.files:
            a, b = got[k], want[k]
            if a.dtype == np.float32:
                assert np.array_equal(a.view(np.uint32), b.view(np.uint32)), (single, k)
            else:
                assert np.array_equal(a, b), (single, k)
        assert Path(model).name in run.stdout and Path(motion).name in run.stdout
    assert not list(out.glob("*.part.npz"))


def test_ray_example_renders_one_mp4_per_pair(tmp_path):
    """--render on the local Ray cluster (2 workers): one MP4 per (model, motion) pair, each
    with the frame count the range gives (MMD frames 0 to 4 at 30 fps: 5) and the size asked
    for, read from the MP4's boxes (conftest's reader, no odori code)."""
    pytest.importorskip("ray")
    from conftest import mp4_video_track

    # The one camera motion beside the dances films every video.
    models, motions = linked_folders(
        tmp_path, ["wavefile/wavefile_v2.vmd", "gene/motion/01_happy.vmd",
                   "wavefile/wavefile_camera.vmd"])
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), str(models), str(motions), str(out), "--workers", "2",
         "--no-progress", "--render", "--size", "64x48", "--range", "0:4", "--backend", "cpu",
         "--fast"],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    print(run.stdout)
    assert "4 pairs" in run.stdout
    assert "wavefile_camera.vmd is a camera motion: every video uses it" in run.stderr
    made = sorted(p.name for p in out.iterdir())
    assert made == sorted(
        f"{m}__{d}.mp4" for m in ["Gene_light", "miku_v2"] for d in ["wavefile_v2", "01_happy"]
    ), made
    for mp4 in out.iterdir():
        assert mp4_video_track(mp4) == {"width": 64, "height": 48, "frames": 5}, mp4


def test_ray_example_says_tqdm_is_missing_before_ray_starts(tmp_path):
    """Without tqdm (hidden from the import system here) the example stops at once with the
    one command that fixes it, before Ray starts: no Ray start-up line in its output."""
    models, motions = linked_folders(tmp_path, ["wavefile/wavefile_v2.vmd"])
    code = (
        "import runpy, sys; sys.modules['tqdm'] = None; "
        f"sys.argv = ['ray_poses.py', {str(models)!r}, {str(motions)!r}, {str(tmp_path / 'o')!r}]; "
        f"runpy.run_path({str(EXAMPLE)!r}, run_name='__main__')"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "pip install tqdm" in run.stderr, run.stderr[-2000:]
    assert "Started a local Ray instance" not in run.stderr + run.stdout
