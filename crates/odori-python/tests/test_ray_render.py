"""odori.RenderJob and examples/ray_render.py: one render taken apart into a pose bake, chunks
and a join.

Evidence: a chunk drawn from the baked poses equals, pixel for pixel, the same frame of
``odori.render`` run on its own (PNG decoded by conftest's reader, no odori code); the video
the Ray example joins from three chunks drawn by Ray tasks has the frame count the range gives
by arithmetic and the size asked for, read from the MP4's boxes (conftest's reader)."""

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import odori
from conftest import mp4_video_track, png_pixels, shared

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ray_render.py"
GENE = "gene/Gene_light.pmx"
WAVEFILE = "wavefile/wavefile_v2.vmd"


def test_a_chunk_draws_the_frame_one_render_draws(tmp_path):
    model, motion = shared(GENE), shared(WAVEFILE)
    common = {"size": (96, 72), "backend": "cpu"}
    job = odori.RenderJob(model=str(model), motion=str(motion), out=str(tmp_path / "x.mp4"),
                          range=(0, 9), **common)
    # It travels as its options: the copy a worker would make draws the same.
    job = pickle.loads(pickle.dumps(job))
    baked = job.bake()
    assert baked["frames"] == 10 and len(baked["poses"]) > 0
    assert odori.RenderJob.split(10, 3) == [(0, 4), (4, 3), (7, 3)]
    report = job.render_chunk(baked["poses"], 6, 2, str(tmp_path / "chunk") + "/")
    assert report["frames"] == 2
    pngs = sorted((tmp_path / "chunk").glob("frame_*.png"))
    assert len(pngs) == 2, pngs
    odori.render(model, motion, out=tmp_path / "one.png", range=6, **common)
    assert png_pixels(pngs[0]) == png_pixels(tmp_path / "one.png")


def test_a_job_refuses_an_option_render_does_not_take():
    with pytest.raises(TypeError, match="unexpected keyword argument 'progres'"):
        odori.RenderJob(progres=None)


def test_ray_example_joins_one_video_from_chunks(tmp_path):
    pytest.importorskip("ray")
    model, motion = shared(GENE), shared(WAVEFILE)
    out = tmp_path / "long.mp4"
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), str(model), str(motion), "-o", str(out), "--chunks", "3",
         "--workers", "2", "--range", "0:29", "--size", "64x48", "--backend", "cpu", "--fast",
         "--no-progress"],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    print(run.stdout)
    assert "30 frames in 3 chunks" in run.stdout
    assert mp4_video_track(out) == {"width": 64, "height": 48, "frames": 30}


def test_a_chunk_whose_worker_is_killed_is_drawn_again(tmp_path):
    """The first try of the second chunk kills its own worker process (SIGKILL from a timer,
    while the chunk draws): Ray retries the task on a fresh worker, and the joined video is
    whole, every frame of the range in it (read from its boxes)."""
    ray = pytest.importorskip("ray")
    sys.path.insert(0, str(EXAMPLE.parent))
    import ray_render

    model, motion = shared(GENE), shared(WAVEFILE)
    marker = tmp_path / "killed-once"

    def draw_or_die(options, poses, first, count):
        import os
        import signal
        import threading
        import time

        if first > 0 and not marker.exists():
            marker.write_text("killed")
            threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGKILL)).start()
            # This try never returns: killed while drawing, or while waiting after it.
            ray_render.draw(options, poses, first, count)
            time.sleep(60)
        return ray_render.draw(options, poses, first, count)

    out = tmp_path / "whole.mp4"
    options = {"model": str(model), "motion": str(motion), "out": str(out), "range": "0:59",
               "size": (96, 72), "backend": "cpu", "fast": True}
    # The workers import the example as the driver does.
    ray.init(num_cpus=2, include_dashboard=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(EXAMPLE.parent)}})
    try:
        r = ray_render.render_on_ray(options, 2, retries=2, draw_chunk=draw_or_die)
    finally:
        ray.shutdown()
    assert marker.exists(), "the kill never happened"
    assert r["frames"] == 60 and r["chunks"] == 2
    assert mp4_video_track(out) == {"width": 96, "height": 72, "frames": 60}
