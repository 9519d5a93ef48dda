"""Bad input raises odori.OdoriError with the located message (file, and for a damaged
file the section and byte offset), never a crash or a partial result."""

import re

import pytest

import odori
from conftest import shared


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
