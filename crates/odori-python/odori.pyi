"""odori: MikuMikuDance models dancing exactly as MMD does, poses as NumPy arrays.

Every batch call (``evaluate``, ``positions``, ``morph_weights``) fills one C-contiguous
float32 array in Rust with the GIL released, starting from a fresh pose state and taking
the frames in the order given, as ``odori pose --frames`` does: equal calls give equal
arrays, bit for bit the command line's values.
"""

import os
from pathlib import Path
from typing import Any, Callable, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, os.PathLike[str]]
_Frames = Union[Sequence[float], npt.ArrayLike]

class OdoriError(Exception):
    """A file that could not be read (the message names the file, the section and the byte
    offset), or a request refused (a motion loaded for another model)."""

class Model:
    """A PMX or PMD model, read and compiled once; share it between motions and instances."""

    @staticmethod
    def load(path: _Path) -> Model:
        """Read and compile a model file. Raises ``OdoriError``."""
    @property
    def path(self) -> str: ...
    @property
    def name(self) -> str:
        """The model's name, as its file gives it."""
    @property
    def bone_names(self) -> list[str]:
        """Bone names in file order: the ``B`` axis of every array."""
    @property
    def parents(self) -> list[int]:
        """Each bone's parent index, -1 for a root."""
    @property
    def morph_names(self) -> list[str]:
        """Morph names in file order: the ``M`` axis of ``morph_weights``."""
    @property
    def warnings(self) -> list[str]:
        """What was repaired or dropped while compiling."""

class Motion:
    """VMD motions or VPD poses, merged in order and bound to one model."""

    @staticmethod
    def load(model: Model, paths: Union[_Path, Sequence[_Path]]) -> Motion:
        """Read one file or several (merged in order) for ``model``. Raises ``OdoriError``."""
    @property
    def model(self) -> Model: ...
    @property
    def paths(self) -> list[str]: ...
    @property
    def frame_count(self) -> int:
        """Frames 0 to the last key inclusive: ``range(frame_count)`` is the whole dance."""
    @property
    def unmatched(self) -> list[str]:
        """Motion tracks that match no bone or morph of the model."""
    @property
    def warnings(self) -> list[str]: ...

class Project:
    """A MikuMikuDance project (PMM version 2), read with its files' paths resolved."""

    @staticmethod
    def load(path: _Path, search: Union[_Path, Sequence[_Path], None] = None) -> "Project":
        """Read a project and find its files: as stored, then by their tails under the
        project's folder and two above it, then under ``search``. Raises ``OdoriError``
        naming the file, section and byte offset; a missing file is a line of ``warnings``."""
    @property
    def path(self) -> Path: ...
    @property
    def models(self) -> list[dict[str, Any]]:
        """``name``, ``path`` (found, or None), ``stored``, ``draw_order``, ``bone_keys``,
        ``morph_keys``, ``edge_width`` per model slot."""
    @property
    def accessories(self) -> list[dict[str, Any]]:
        """``name``, ``path`` (found, or None), ``stored``, ``draw_order``, ``keys``."""
    @property
    def camera(self) -> dict[str, int]:
        """``camera_keys``, ``light_keys``, ``self_shadow_keys``."""
    @property
    def range(self) -> Tuple[Optional[int], Optional[int]]: ...
    @property
    def size(self) -> Tuple[int, int]: ...
    @property
    def audio(self) -> Optional[Path]: ...
    @property
    def warnings(self) -> list[str]: ...
    def render(self, **options: Any) -> dict[str, Any]:
        """``render(project=self.path, search=…, **options)``."""

class RenderJob:
    """One render taken apart for a cluster: its poses baked once, drawn in chunks,
    joined. Made from ``render``'s keyword arguments (all but ``progress``); pickles as
    them, so give paths rather than ``Model`` objects when it travels."""

    def __init__(self, **options: Any) -> None: ...
    def bake(self) -> dict[str, Any]:
        """``{"poses": bytes, "frames": int, "messages": list[str]}``: the pose and physics
        of every frame of the range, computed once."""
    @staticmethod
    def split(frames: int, chunks: int) -> list[Tuple[int, int]]:
        """``(first, count)`` runs, as even as can be."""
    def render_chunk(self, poses: bytes, first: int, count: int, segment: _Path) -> dict[str, Any]:
        """Frames ``first..first+count`` from ``poses`` into an MP4 segment (or a folder
        ``"dir/"`` of PNGs): ``frames``, ``seconds``."""
    def join(self, segments: Sequence[_Path], poses: bytes) -> dict[str, Any]:
        """The segments, in order, joined into the job's ``out`` MP4 with its soundtrack:
        ``output``, ``frames``."""

class Instance:
    """One model dancing one motion.

    ``with_physics``: rigid bodies simulated from a settled frame 0, one frame at a time up
    to each frame asked for (frames should be ascending; one thread). Without, frames are
    spread over threads when the model carries no state from frame to frame (else one
    thread, in order). ``ik=False`` turns every IK solver off (``odori pose --no-ik``).
    Raises ``OdoriError`` when ``motion`` was loaded for another model.
    """

    def __init__(self, model: Model, motion: Motion, with_physics: bool = False, ik: bool = True) -> None: ...
    @property
    def model(self) -> Model: ...
    @property
    def motion(self) -> Motion: ...
    @property
    def with_physics(self) -> bool: ...
    @property
    def ik(self) -> bool: ...
    def evaluate(
        self, frames: _Frames, out: Optional[npt.NDArray[np.float32]] = None, parallel: bool = True
    ) -> npt.NDArray[np.float32]:
        """World matrices ``(F, B, 4, 4)``: ``m[f, b]`` is bone ``b``'s model-space matrix at
        ``frames[f]``, translation in ``m[f, b, :3, 3]`` (``odori pose``'s ``world``, which
        lists the same floats column by column). ``out``: an array of that shape to fill."""
    def positions(
        self, frames: _Frames, out: Optional[npt.NDArray[np.float32]] = None, parallel: bool = True
    ) -> npt.NDArray[np.float32]:
        """Bone world positions ``(F, B, 3)``."""
    def morph_weights(
        self, frames: _Frames, out: Optional[npt.NDArray[np.float32]] = None, parallel: bool = True
    ) -> npt.NDArray[np.float32]:
        """Morph weights after group and flip morphs are expanded ``(F, M)``
        (``odori pose --morphs``)."""

def evaluations_in_flight() -> int:
    """Batch evaluations running in Rust with the GIL released right now."""

_Motions = Union[_Path, Sequence[_Path], Motion, None]
_Range = Union[str, float, Tuple[Optional[float], Optional[float]], None]

def render(
    model: Union[_Path, Model, Sequence[Union[_Path, Model]], None] = None,
    motion: Union[_Motions, Sequence[_Motions]] = None,
    *,
    out: _Path = "odori.mp4",
    camera: Optional[_Path] = None,
    stage: Union[_Path, Model, Sequence[Union[_Path, Model]], None] = None,
    accessories: Union[str, Sequence[str], None] = None,
    side_by_side: bool = False,
    audio: Optional[_Path] = None,
    size: Union[Tuple[int, int], str, None] = None,
    fps: Literal[24, 25, 30, 50, 60] = 30,
    range: _Range = None,
    msaa: Optional[Literal[1, 2, 4, 8]] = None,
    fast: bool = False,
    physics: bool = True,
    settle: Optional[float] = None,
    self_shadow: bool = True,
    ground_shadow: bool = True,
    edges: bool = True,
    encoder: Literal["auto", "builtin", "ffmpeg"] = "auto",
    skinning: Literal["auto", "cpu", "gpu"] = "auto",
    backend: Literal["auto", "gpu", "cpu"] = "auto",
    verbose: bool = False,
    progress: Optional[Callable[[int, int], Any]] = None,
    project: Optional[_Path] = None,
    search: Union[_Path, Sequence[_Path], None] = None,
) -> dict[str, Any]:
    """Render a dance to MP4 (H.264, audio muxed), one PNG, or a folder of PNGs: ``odori
    render`` with the same options and defaults, the same frames.

    ``model``: a path or ``Model`` (or a list of them, with ``motion`` a list of the same
    length: several dancers, every one at the origin as in MMD, or stood apart with
    ``side_by_side=True``); none: the embedded demo. ``stage``: a path or ``Model`` (or a
    list) drawn at the origin, not framed by the default camera. ``accessories``:
    ``"FILE[@MODEL:BONE]"`` or a list of them (``"mic.pmx@0:右手首"``: held by model 0's
    right wrist, after physics; no ``@``: at the origin). ``motion``: a path, a list of
    paths merged in order, or a ``Motion`` (loaded for that model). ``out``: ``NAME.mp4``,
    ``NAME.png`` (the range's first frame) or a folder (``"frames/"``). ``size``: ``(w, h)``
    or ``"1280x720"`` (the default). ``range``: MMD frames ``(a, b)`` or ``"a:b"`` (b
    included; either side may be None/empty), or one frame; default the whole motion.
    ``msaa``: default 4 (1 with ``fast``). ``settle``: seconds physics settles before frame 0
    (default 3; 0: none). ``progress(done, total)`` is called after each frame; an exception
    it raises stops the render (frames done so far kept) and is raised again. ``project``: a
    MikuMikuDance project (``.pmm``) rendered instead of ``model`` with its own size, range,
    camera and soundtrack unless given; its files are also looked for under ``search``.

    Runs with the GIL released. Returns ``frames``, ``requested``, ``seconds``, per-frame
    stage milliseconds, ``output`` and ``messages`` (the warnings ``odori render`` prints).
    Raises ``OdoriError`` with the located message."""

def bake(
    model: Union[_Path, Model],
    motion: Union[_Path, Motion],
    out: _Path,
    *,
    tolerance: float = 0.001,
    verbose: bool = False,
) -> dict[str, Any]:
    """Simulate physics over a VMD motion and write it back with every simulated bone as
    keyframes (physics off on them): ``odori bake``, the same bytes. ``tolerance`` (model
    units, 0 to 1): keys are dropped where the replay stays this close to the simulation; 0
    keeps a key on every frame. Runs with the GIL released. Returns ``bones``, ``last_frame``,
    ``bytes``, ``keys_before``, ``keys_after``, ``max_error``, ``messages``. Raises
    ``OdoriError`` (a model without simulated bodies, a VPD, an unreadable file)."""
