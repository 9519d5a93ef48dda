"""Bad input raises odori.OdoriError with the located message (file, and for a damaged
file the section and byte offset), never a crash or a partial result."""

import re

import pytest

import odori
from conftest import physics_required, shared


def test_missing_model_names_the_path(tmp_path):
    p = tmp_path / "nope.pmx"
    with pytest.raises(odori.OdoriError, match=re.escape(str(p))):
        odori.Model.load(p)


def test_truncated_model_names_file_and_offset(tmp_path):
    data = shared("gene/Gene_light.pmx").read_bytes()
    p = tmp_path / "cut.pmx"
    p.write_bytes(data[: len(data) // 3])
    with pytest.raises(odori.OdoriError) as e:
        odori.Model.load(p)
    text = str(e.value)
    assert str(p) in text and re.search(r"offset \d+|byte \d+", text), text


def test_truncated_motion_names_file_and_offset(tmp_path):
    model = odori.Model.load(shared("gene/Gene_light.pmx"))
    data = shared("wavefile/wavefile_v2.vmd").read_bytes()
    p = tmp_path / "cut.vmd"
    p.write_bytes(data[:1000])
    with pytest.raises(odori.OdoriError) as e:
        odori.Motion.load(model, [p])
    text = str(e.value)
    assert str(p) in text and re.search(r"offset \d+|byte \d+", text), text


def test_a_motion_loaded_for_another_model_is_refused():
    gene = odori.Model.load(shared("gene/Gene_light.pmx"))
    miku = odori.Model.load(shared("miku_v2/miku_v2.pmd"))
    dance = shared("wavefile/wavefile_v2.vmd")
    for_gene = odori.Motion.load(gene, dance)
    with pytest.raises(odori.OdoriError, match="loaded for another model") as e:
        odori.Instance(miku, for_gene)
    assert "miku_v2.pmd" in str(e.value) and "wavefile_v2.vmd" in str(e.value)


def test_bad_out_array_is_refused():
    import numpy as np

    model = odori.Model.load(shared("gene/Gene_light.pmx"))
    inst = odori.Instance(model, odori.Motion.load(model, shared("wavefile/wavefile_v2.vmd")))
    with pytest.raises(ValueError, match="shape"):
        inst.evaluate([0, 1], out=np.zeros((3, 224, 4, 4), np.float32))
    with pytest.raises(odori.OdoriError, match="finite"):
        inst.positions([float("nan")])


def test_option_names_are_the_command_lines(tmp_path):
    # The names come from the playback library's table, which `odori render --encoder` reads
    # too: a name the command line refuses is refused here, listing the same names.
    for keyword, bad, names in [("encoder", "x264", "auto, builtin, ffmpeg"),
                                ("skinning", "fpga", "auto, cpu, gpu"),
                                ("backend", "metal", "auto, gpu, cpu")]:
        with pytest.raises(odori.OdoriError, match=re.escape(f'{keyword} "{bad}": give one of {names}')):
            odori.render(out=tmp_path / "x.png", **{keyword: bad})


def test_frames_and_out_are_refused_in_pythons_terms():
    """Item by item, what a Python user gets wrong, each refused with what was expected (no
    Rust type names), and the one rule for requested frames (odori_playback::requested_frames):
    before frame 0, past any motion, out of order under physics."""
    import numpy as np

    model = odori.Model.load(shared("gene/Gene_light.pmx"))
    motion = odori.Motion.load(model, shared("wavefile/wavefile_v2.vmd"))
    inst = odori.Instance(model, motion)
    bones = len(model.bone_names)
    with pytest.raises(TypeError, match=rf"float32 NumPy array of shape \[2, {bones}, 4, 4\]") as e:
        inst.evaluate([0, 1], out=np.zeros((2, bones, 4, 4), np.float64))
    assert "float64" in str(e.value)
    with pytest.raises(ValueError, match=r"one-dimensional.*shape \(2, 2\)"):
        inst.positions(np.zeros((2, 2)))
    with pytest.raises(TypeError, match='not the string "0:10"'):
        inst.positions("0:10")
    with pytest.raises(TypeError, match="frame numbers"):
        inst.positions([1 + 2j])
    with pytest.raises(odori.OdoriError, match=r"frame -5 \(at index 0\).*count from 0"):
        inst.positions([-5])
    with pytest.raises(odori.OdoriError, match="past any motion"):
        inst.positions([1e30])
    # Any real dtype of frames is taken.
    assert inst.positions(np.arange(3, dtype=np.float64)).shape == (3, bones, 3)
    try:
        phys = odori.Instance(model, motion, with_physics=True)
    except odori.OdoriError as e:
        if physics_required():
            raise
        pytest.skip(f"no physics in this build: {e}")
    with pytest.raises(odori.OdoriError, match=r"in order.*frame 5 \(at index 1\)"):
        phys.positions([10, 5])


def test_a_motion_for_another_model_says_what_to_do_in_python():
    gene = odori.Model.load(shared("gene/Gene_light.pmx"))
    miku = odori.Model.load(shared("miku_v2/miku_v2.pmd"))
    for_gene = odori.Motion.load(gene, shared("wavefile/wavefile_v2.vmd"))
    with pytest.raises(odori.OdoriError) as e:
        odori.Instance(miku, for_gene)
    assert "odori.Motion.load" in str(e.value)
    assert "rebind" not in str(e.value) and "Instance::" not in str(e.value)
