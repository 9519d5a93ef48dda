"""The Python examples of README.md and docs/python.md must still run.

Every fenced ```python block of those pages is executed, with the file names it uses
(Gene_light.pmx, wavefile_v2.vmd, ...) pointed at ../shared, in one namespace per page and a
temporary working folder (outputs such as dance.mp4 land there). The evidence is the module
itself: a block that raises fails the test. A block naming a file this test cannot provide
fails too, so an example cannot go unchecked by naming a file nobody has; and the count of
blocks run is checked, so a page whose blocks were lost or renamed does not pass on nothing.
"""

import re
from pathlib import Path

from conftest import ROOT, shared

# Files the pages name, by the name they use, under ../shared/assets.
FILES = {
    "Gene_light.pmx": "gene/Gene_light.pmx",
    "Gene_light.pmd": "gene/Gene_light.pmd",
    "miku_v2.pmd": "miku_v2/miku_v2.pmd",
    "wavefile_v2.vmd": "wavefile/wavefile_v2.vmd",
    "wavefile_camera.vmd": "wavefile/wavefile_camera.vmd",
    "サンプル（きしめんAllStar).pmm": "mmd-sample/UserFile/サンプル（きしめんAllStar).pmm",
}
# Whole-dance renders are cut to a few frames (the options are what is checked, not the
# length). Outputs the examples write (in the temporary folder) and inputs this test writes there.
MADE_HERE = {"dance.mp4", "frame900.png", "duo.mp4", "wavefile_baked.vmd", "song.wav",
             "sample.mp4"}


def blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)


def silent_wav(path: Path) -> None:
    import wave

    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(44100)
        w.writeframes(b"\0\0" * 44100 * 12)


def test_every_python_example_on_the_pages_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    silent_wav(tmp_path / "song.wav")
    ran = 0
    for page in [ROOT / "README.md", ROOT / "docs" / "python.md"]:
        # A page's blocks share one namespace, as a reader's session would.
        namespace = {}
        for i, code in enumerate(blocks(page)):
            for name in set(re.findall(r'"([^"]+\.[a-z0-9]+)"', code)):
                if name in FILES:
                    code = code.replace(f'"{name}"', repr(str(shared(FILES[name]))))
                else:
                    assert name in MADE_HERE, f"{page.name} block {i}: the test cannot provide {name}"
            # The examples render whole dances; a test renders a few frames of them.
            code = code.replace('out="dance.mp4"', 'out="dance.mp4", range=(0, 2)')
            code = code.replace('out="sample.mp4"', 'out="sample.mp4", range=(0, 2)')
            code = code.replace("range=(0, 299)", "range=(0, 2)")
            exec(compile(code, f"{page.name}:python block {i}", "exec"), namespace)
            ran += 1
    # The README's example and docs/python.md's three.
    assert ran >= 4, f"only {ran} python blocks found"
