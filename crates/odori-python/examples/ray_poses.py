"""Every (model, dance) pair's poses, computed on a Ray cluster: one ``.npz`` per pair.

    python ray_poses.py MODELS_DIR MOTIONS_DIR OUT_DIR [--workers N] [--address auto] [--world]
    python ray_poses.py MODELS_DIR MOTIONS_DIR OUT_DIR --render [--size 640x360] [--range 0:299]

Each Ray worker is an actor that loads each model once (and each motion once per model)
and keeps them, so a model is read and compiled once per worker, not once per pair.
Each ``.npz`` holds ``positions`` (F, B, 3), ``morph_weights`` (F, M), ``frames`` (F,),
``bone_names`` and ``morph_names``, and with ``--world`` the world matrices (F, B, 4, 4),
all float32, for every frame of the dance (``range(motion.frame_count)``). With
``--render`` each pair is rendered to ``MODEL__MOTION.mp4`` instead (``odori.render``: the
options of ``odori render``, ``--size``, ``--range``, ``--fps``, ``--backend``, ``--fast``).
A camera motion (a VMD with only camera keys) among the motions is no dance: it films every
video when it is the only one and ``--render`` is given, and is skipped otherwise.
A summary table (one line per pair) and the throughput are printed at the end.

On a multi-node cluster (``--address auto``) only the paths travel to the workers: every
node must see MODELS_DIR, MOTIONS_DIR and OUT_DIR at the same paths (shared storage), and
have the ``odori`` wheel installed.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import time
from pathlib import Path

import numpy as np

import odori

MODEL_EXTS = {".pmx", ".pmd"}
MOTION_EXTS = {".vmd", ".vpd"}


def out_name(model: Path, motion: Path, ext: str = "npz") -> str:
    """The output name of one pair: ``MODEL__MOTION.npz`` (or ``.mp4``)."""
    return f"{model.stem}__{motion.stem}.{ext}"


class Loader:
    """Models and motions loaded once and kept (one per process or Ray worker)."""

    def __init__(self, parallel: bool = True) -> None:
        # A Ray actor holds one CPU: it keeps its evaluations to one thread (parallel=False)
        # rather than spreading each over every core beside the other actors.
        self.parallel = parallel
        self.models: dict[str, odori.Model] = {}
        self.motions: dict[tuple[str, str], odori.Motion] = {}

    def model(self, model: str) -> odori.Model:
        if model not in self.models:
            self.models[model] = odori.Model.load(model)
        return self.models[model]

    def instance(self, model: str, motion: str) -> odori.Instance:
        m = self.model(model)
        key = (model, motion)
        if key not in self.motions:
            self.motions[key] = odori.Motion.load(m, motion)
        return odori.Instance(m, self.motions[key])

    def pose_pair(self, model: str, motion: str, out: str, world: bool) -> dict:
        """Compute one pair's arrays and write them to ``out``; a summary row."""
        t = time.perf_counter()
        inst = self.instance(model, motion)
        frames = np.arange(inst.motion.frame_count, dtype=np.float32)
        arrays = {
            "frames": frames,
            "positions": inst.positions(frames, parallel=self.parallel),
            "morph_weights": inst.morph_weights(frames, parallel=self.parallel),
            "bone_names": np.array(inst.model.bone_names),
            "morph_names": np.array(inst.model.morph_names),
        }
        if world:
            arrays["world"] = inst.evaluate(frames, parallel=self.parallel)
        tmp = out + ".part.npz"
        np.savez(tmp, **arrays)
        os.replace(tmp, out)  # never a partial .npz under the final name
        return {
            "model": Path(model).name,
            "motion": Path(motion).name,
            "frames": len(frames),
            "bones": len(inst.model.bone_names),
            "seconds": time.perf_counter() - t,
            "out": out,
            "pid": os.getpid(),
        }


    def render_pair(self, model: str, motion: str, out: str, options: dict) -> dict:
        """Render one pair to ``out`` (an MP4) with ``odori.render``; a summary row."""
        t = time.perf_counter()
        m = self.model(model)
        report = odori.render(m, motion, out=out, **options)
        return {
            "model": Path(model).name,
            "motion": Path(motion).name,
            "frames": report["frames"],
            "bones": len(m.bone_names),
            "seconds": time.perf_counter() - t,
            "out": out,
            "pid": os.getpid(),
        }


def is_camera_vmd(path: Path) -> bool:
    """A VMD with camera keys and no bone or morph keys: a camera motion, not a dance (a model
    given it would stand still in its rest pose). Read from the section counts: a 30-byte
    magic and 20-byte name, then bone keys of 111 bytes, morph keys of 23, camera keys."""
    if path.suffix.lower() != ".vmd":
        return False
    with open(path, "rb") as f:
        head = f.read(54)
        if len(head) < 54:
            return False
        (bones,) = struct.unpack_from("<I", head, 50)
        if bones:
            return False
        counts = f.read(4)
        if len(counts) < 4 or struct.unpack("<I", counts)[0]:
            return False
        cameras = f.read(4)
        return len(cameras) == 4 and struct.unpack("<I", cameras)[0] > 0


def motion_files(motions_dir: Path) -> tuple[list[Path], list[Path]]:
    """The dances (VMD with bone or morph keys, VPD poses) and the camera VMDs under
    ``motions_dir``."""
    found = sorted(p for p in motions_dir.rglob("*") if p.suffix.lower() in MOTION_EXTS)
    cameras = [p for p in found if is_camera_vmd(p)]
    return [p for p in found if p not in cameras], cameras


def pairs(
    models_dir: Path, motions_dir: Path, out_dir: Path, ext: str = "npz"
) -> list[tuple[str, str, str]]:
    models = sorted(p for p in models_dir.rglob("*") if p.suffix.lower() in MODEL_EXTS)
    motions, _ = motion_files(motions_dir)
    if not models:
        raise SystemExit(f"error: no PMX or PMD model under {models_dir}")
    if not motions:
        raise SystemExit(f"error: no VMD or VPD motion under {motions_dir}")
    return [
        (str(m), str(d), str(out_dir / out_name(m, d, ext))) for m in models for d in motions
    ]


def run(jobs, workers: int, world: bool, progress: bool = True, render: dict | None = None) -> list[dict]:
    """Spread ``jobs`` over ``workers`` Ray actors (Ray must be initialised): poses, or with
    ``render`` (``odori.render``'s keyword arguments) MP4s."""
    import ray
    from ray.util import ActorPool

    Worker = ray.remote(num_cpus=1)(Loader)
    pool = ActorPool([Worker.remote(parallel=False) for _ in range(workers)])
    if render is not None:
        results = pool.map_unordered(lambda a, j: a.render_pair.remote(*j, render), jobs)
    else:
        results = pool.map_unordered(lambda a, j: a.pose_pair.remote(*j, world), jobs)
    if progress:
        from tqdm import tqdm

        results = tqdm(results, total=len(jobs), unit="pair", file=sys.stderr)
    return list(results)


def table(rows: list[dict], seconds: float) -> str:
    rows = sorted(rows, key=lambda r: (r["model"], r["motion"]))
    w = max([len(r["model"]) for r in rows] + [5])
    d = max([len(r["motion"]) for r in rows] + [6])
    lines = [f"{'model':<{w}}  {'motion':<{d}}  {'frames':>6}  {'bones':>5}  {'s':>6}  out"]
    for r in rows:
        lines.append(
            f"{r['model']:<{w}}  {r['motion']:<{d}}  {r['frames']:>6}  {r['bones']:>5}"
            f"  {r['seconds']:>6.2f}  {r['out']}"
        )
    frames = sum(r["frames"] for r in rows)
    lines.append(
        f"{len(rows)} pairs, {frames} frames in {seconds:.2f} s: "
        f"{len(rows) / seconds:.2f} pairs/s, {frames / seconds:.0f} frames/s"
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", type=Path, help="folder of PMX/PMD models (searched recursively)")
    ap.add_argument("motions", type=Path, help="folder of VMD/VPD motions (searched recursively)")
    ap.add_argument("out", type=Path, help="folder for the .npz files")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="Ray actors (each loads models once); default: CPUs")
    ap.add_argument("--address", default=None,
                    help="a running Ray cluster (e.g. auto); default: start a local one")
    ap.add_argument("--world", action="store_true", help="also store world matrices (F, B, 4, 4)")
    ap.add_argument("--no-progress", action="store_true")
    r = ap.add_argument_group("rendering (odori render's options)")
    r.add_argument("--render", action="store_true", help="render one MP4 per pair instead of poses")
    r.add_argument("--size", default="1280x720", help="WIDTHxHEIGHT (even sides)")
    r.add_argument("--range", default=None, help="MMD frames a:b (b included); default: all")
    r.add_argument("--fps", type=int, default=30, choices=[24, 25, 30, 50, 60])
    r.add_argument("--backend", default="auto", choices=["auto", "gpu", "cpu"])
    r.add_argument("--fast", action="store_true", help="MSAA 1 and a small shadow map")
    r.add_argument("--no-physics", action="store_true")
    a = ap.parse_args(argv)
    # Everything the run needs is checked before Ray starts (which takes seconds).
    if not a.no_progress:
        try:
            import tqdm  # noqa: F401
        except ImportError:
            raise SystemExit("error: the progress bar needs tqdm (pip install tqdm); "
                             "or pass --no-progress")
    import ray

    _, cameras = motion_files(a.motions)
    render = None
    if a.render:
        render = {"size": a.size, "range": a.range, "fps": a.fps, "backend": a.backend,
                  "fast": a.fast, "physics": not a.no_physics}
        # One camera motion beside the dances films every video; with several, none is chosen.
        if len(cameras) == 1:
            render["camera"] = str(cameras[0])
            print(f"note: {cameras[0].name} is a camera motion: every video uses it",
                  file=sys.stderr)
    if cameras and "camera" not in (render or {}):
        names = ", ".join(c.name for c in cameras)
        print(f"note: camera motion(s) skipped, not danced: {names}", file=sys.stderr)
    jobs = pairs(a.models, a.motions, a.out, "mp4" if a.render else "npz")
    a.out.mkdir(parents=True, exist_ok=True)
    if a.address:
        ray.init(address=a.address)
    else:
        ray.init(num_cpus=a.workers, include_dashboard=False)
    t = time.perf_counter()
    rows = run(jobs, a.workers, a.world, progress=not a.no_progress, render=render)
    print(table(rows, time.perf_counter() - t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
