"""One long video rendered on a Ray cluster: the poses baked once, the frames drawn in chunks
by Ray tasks, the segments joined into one MP4.

    python ray_render.py MODEL MOTION [MOTION ...] -o OUT.mp4 [--chunks N] [--workers N]
        [--camera CAM.vmd] [--audio SONG.wav] [--size 1280x720] [--range A:B] [--address auto]
    python ray_render.py PROJECT.pmm -o OUT.mp4 --chunks 8

The driver makes an ``odori.RenderJob`` from ``odori.render``'s options and bakes the pose
and physics of every frame once (physics runs in order, so it cannot be split). The baked
poses go into Ray's object store once; each task rebuilds the job from its options (paths
travel, not models), draws its run of frames from the poses into an MP4 segment on its own
node, and hands the segment's bytes back. The driver joins them without encoding again and
muxes the soundtrack once. The frames are those of one ``odori render`` of the whole range;
a task that dies is retried by Ray (``max_retries``), drawing the same frames again.

Every node needs the model, motion and song at the same paths, and the ``odori`` wheel.
Timings of the three phases are printed at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import odori


def draw(options: dict, poses: bytes, first: int, count: int) -> bytes:
    """One run of frames from the baked poses, as the bytes of an MP4 segment."""
    job = odori.RenderJob(**options)
    with tempfile.TemporaryDirectory(prefix="odori-chunk-") as d:
        segment = Path(d) / f"{first:06}.mp4"
        job.render_chunk(poses, first, count, segment)
        return segment.read_bytes()


def render_on_ray(options: dict, chunks: int, retries: int = 2, progress: bool = False,
                  draw_chunk=draw) -> dict:
    """Render ``odori.render(**options)`` in ``chunks`` Ray tasks (Ray must be initialised),
    each retried up to ``retries`` times when its worker dies; ``progress``: a bar of the
    chunks done across the cluster (tqdm). ``draw_chunk`` draws one run (``draw``'s
    arguments). Returns the seconds of each phase (``bake_s``, ``draw_s``, ``join_s``),
    ``frames``, ``chunks`` and the bake's ``messages``."""
    import ray

    job = odori.RenderJob(**options)
    t = time.perf_counter()
    baked = job.bake()
    bake_s = time.perf_counter() - t
    poses = ray.put(baked["poses"])
    runs = odori.RenderJob.split(baked["frames"], chunks)
    task = ray.remote(num_cpus=1, max_retries=retries)(draw_chunk)
    t = time.perf_counter()
    refs = [task.remote(options, poses, first, count) for first, count in runs]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(c for _, c in runs), unit="frame", file=sys.stderr)
    pending, frames_of = list(refs), {ref: count for ref, (_, count) in zip(refs, runs)}
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        if bar is not None:
            bar.update(sum(frames_of[r] for r in ready))
    if bar is not None:
        bar.close()
    segments = ray.get(refs)
    draw_s = time.perf_counter() - t
    t = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="odori-segments-") as d:
        paths = []
        for (first, _), data in zip(runs, segments):
            p = Path(d) / f"{first:06}.mp4"
            p.write_bytes(data)
            paths.append(p)
        joined = job.join(paths, baked["poses"])
    join_s = time.perf_counter() - t
    return {"frames": joined["frames"], "chunks": len(runs), "bake_s": bake_s,
            "draw_s": draw_s, "join_s": join_s, "messages": baked["messages"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path,
                    help="a model and its motions, or a MikuMikuDance project (.pmm)")
    ap.add_argument("-o", "--out", type=Path, required=True, help="the MP4 to write")
    ap.add_argument("--chunks", type=int, default=None, help="Ray tasks (default: --workers)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="CPUs of the local Ray instance started when --address is not given")
    ap.add_argument("--address", default=None, help="a running Ray cluster (e.g. auto)")
    ap.add_argument("--camera", type=Path)
    ap.add_argument("--audio", type=Path)
    ap.add_argument("--size", default=None, help="WIDTHxHEIGHT (default 1280x720, or the project's)")
    ap.add_argument("--range", default=None, help="MMD frames a:b (b included); default: all")
    ap.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    ap.add_argument("--fast", action="store_true", help="MSAA 1 and a small shadow map")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    if not a.no_progress:
        try:
            import tqdm  # noqa: F401
        except ImportError:
            raise SystemExit("error: the progress bar needs tqdm (pip install tqdm); "
                             "or pass --no-progress")
    if a.out.suffix.lower() != ".mp4":
        raise SystemExit(f"error: {a.out}: the chunks are joined into an MP4 (give NAME.mp4)")
    options = {"out": str(a.out.resolve()), "size": a.size, "range": a.range,
               "backend": a.backend, "fast": a.fast}
    first = a.files[0]
    if first.suffix.lower() == ".pmm":
        options["project"] = str(first.resolve())
    else:
        options["model"] = str(first.resolve())
        options["motion"] = [str(m.resolve()) for m in a.files[1:]]
    for key in ("camera", "audio"):
        if getattr(a, key):
            options[key] = str(getattr(a, key).resolve())
    odori.RenderJob(**options)  # a bad option fails here, before Ray starts
    import ray

    if a.address:
        ray.init(address=a.address)
    else:
        ray.init(num_cpus=a.workers, include_dashboard=False)
    t = time.perf_counter()
    r = render_on_ray(options, a.chunks or a.workers, progress=not a.no_progress)
    for m in r["messages"]:
        print(m, file=sys.stderr)
    print(f"wrote {a.out}: {r['frames']} frames in {r['chunks']} chunks, "
          f"{time.perf_counter() - t:.1f} s (bake {r['bake_s']:.1f} s, draw {r['draw_s']:.1f} s, "
          f"join {r['join_s']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
