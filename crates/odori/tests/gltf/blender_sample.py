# Import a GLB with Blender's own glTF importer and print, as JSON on one line prefixed by
# "ODORI_SAMPLES ", every joint's world position and the deformed mesh's bounding box at the
# given sample indices (frame k of the export is Blender frame k at 30 or 60 fps).
#   blender -b --factory-startup --python blender_sample.py -- FILE.glb FPS 0,30,60
# Positions are in Blender's frame (Z up): the importer turns glTF's (x, y, z) into
# (x, -z, y).
import json
import sys

import bpy
import numpy

# Debian's Blender 3.4 glTF importer still says `numpy.bool`, an alias NumPy 1.24 (Debian
# 12's) removed; restore it for the importer.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

argv = sys.argv[sys.argv.index("--") + 1:]
path, fps, samples = argv[0], int(argv[1]), [int(s) for s in argv[2].split(",")]

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = fps
scene.frame_start = 0
bpy.ops.import_scene.gltf(filepath=path)

arms = [o for o in scene.objects if o.type == "ARMATURE"]
meshes = [o for o in scene.objects if o.type == "MESH"]
assert len(arms) == 1, "expected one armature, got %d" % len(arms)
arm = arms[0]
out = {"bones": [b.name for b in arm.pose.bones], "frames": []}
for k in samples:
    scene.frame_set(k)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    joints = {pb.name: list(arm.matrix_world @ pb.head) for pb in arm.pose.bones}
    lo = [float("inf")] * 3
    hi = [float("-inf")] * 3
    for m in meshes:
        ev = m.evaluated_get(depsgraph)
        data = ev.to_mesh()
        mw = ev.matrix_world
        for v in data.vertices:
            p = mw @ v.co
            for i in range(3):
                lo[i] = min(lo[i], p[i])
                hi[i] = max(hi[i], p[i])
        ev.to_mesh_clear()
    out["frames"].append({"sample": k, "joints": joints, "min": lo, "max": hi})
print("ODORI_SAMPLES " + json.dumps(out))
