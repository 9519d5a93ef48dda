"""The module's arrays against the `odori pose` binary's JSON, bit for bit.

The comparison: `odori pose` writes each f32 with serde_json's shortest round-trip decimal
(ryu); Python reads it as the nearest float64 and NumPy rounds that to float32. Every value
read back so is compared with ours as raw bits (uint32 views), and the test fails on any
difference; a frame or bone missing from either side fails on the shapes."""

import json
import subprocess

import numpy as np
import pytest

import odori
from conftest import odori_bin, shared

GENE = "gene/Gene_light.pmx"
MIKU = "miku_v2/miku_v2.pmd"
WAVEFILE = "wavefile/wavefile_v2.vmd"


def pose_json(tmp_path, model, motion, spec):
    out = tmp_path / "pose.json"
    subprocess.run(
        [str(odori_bin()), "pose", str(model), str(motion), "--frames", spec, "--morphs", "-o", str(out)],
        check=True,
    )
    return json.loads(out.read_text())


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


@pytest.mark.parametrize(
    "model_rel,spec",
    [
        # Every fifth frame of the whole dance, then fractional frames (interpolated keys).
        (GENE, "0:2809:5,10.5,11.25,2809"),
        (MIKU, "0:2809:10,0.5"),
    ],
)
def test_arrays_equal_odori_pose_bit_for_bit(tmp_path, model_rel, spec):
    model_path, motion_path = shared(model_rel), shared(WAVEFILE)
    dump = pose_json(tmp_path, model_path, motion_path, spec)
    model = odori.Model.load(model_path)
    inst = odori.Instance(model, odori.Motion.load(model, [motion_path]))
    frames = np.array([f["frame"] for f in dump["frames"]], dtype=np.float32)
    assert len(frames) > 100

    want_world = np.array([f["world"] for f in dump["frames"]], dtype=np.float32)  # (F, B, 16) column-major
    want_morphs = np.array([f["morphWeights"] for f in dump["frames"]], dtype=np.float32)
    assert [b["name"] for b in dump["bones"]] == model.bone_names
    assert dump["morphNames"] == model.morph_names

    world = inst.evaluate(frames)
    assert world.shape == (len(frames), len(model.bone_names), 4, 4) and world.dtype == np.float32
    # Ours is row-major (m[r][c]); the dump lists columns: transposing moves, never rounds.
    cols = world.transpose(0, 1, 3, 2).reshape(len(frames), -1, 16)
    assert np.array_equal(bits(cols), bits(want_world))

    pos = inst.positions(frames)
    assert np.array_equal(bits(pos), bits(want_world[:, :, 12:15]))
    morphs = inst.morph_weights(frames)
    assert morphs.shape == want_morphs.shape
    assert np.array_equal(bits(morphs), bits(want_morphs))

    # Filling a caller's array in place gives the same bits, and one thread the same too.
    out = np.empty_like(world)
    assert inst.evaluate(frames, out=out, parallel=False) is not None
    assert np.array_equal(bits(out), bits(world))


def test_names_and_counts():
    model = odori.Model.load(shared(GENE))
    motion = odori.Motion.load(model, shared(WAVEFILE))
    assert motion.frame_count == 2810
    assert len(model.bone_names) == len(model.parents) == 224
    assert model.bone_names[0] == "全ての親" and model.parents[0] == -1


def test_physics_frames_are_those_of_playing_in_order():
    """Frames asked for with gaps equal those of one call playing every frame."""
    model = odori.Model.load(shared(GENE))
    motion = odori.Motion.load(model, shared(WAVEFILE))
    try:
        inst = odori.Instance(model, motion, with_physics=True)
    except odori.OdoriError as e:
        from conftest import physics_required

        if physics_required():
            raise
        pytest.skip(f"no physics engine: {e}")
    played = inst.evaluate(np.arange(61, dtype=np.float32))
    # Jumps forward are stepped through frame by frame (the player's preroll).
    asked = inst.evaluate([0, 30, 31, 60])
    for i, f in enumerate([0, 30, 31, 60]):
        assert np.array_equal(bits(asked[i]), bits(played[f])), f"frame {f}"
    still = odori.Instance(model, motion).evaluate([60])
    assert not np.array_equal(bits(still[0]), bits(played[60])), "physics moved nothing"
