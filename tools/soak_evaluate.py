"""Soak of the Python module: ``odori.Instance.evaluate`` called CALLS times (default 10,000)
on Gene_light × wavefile_v2 with physics, frames 0–29 each call (each call simulates from a
settled frame 0, so every call must give the same matrices). Prints the process's resident
memory, open file handles and threads every tenth of the run, the growth after the first
tenth, and whether the last call's matrices equal the first's, bit for bit. Not run by CI.

    python tools/soak_evaluate.py [CALLS]     (with the module installed: maturin develop)
"""
import os
import sys
import time

import numpy as np
import odori

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "assets")
model = odori.Model.load(os.path.join(root, "gene", "Gene_light.pmx"))
motion = odori.Motion.load(model, os.path.join(root, "wavefile", "wavefile_v2.vmd"))
inst = odori.Instance(model, motion, with_physics=True)


def sample():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    rss = int(fields["VmRSS"].split()[0])
    return rss, len(os.listdir("/proc/self/fd")), len(os.listdir("/proc/self/task"))


frames = range(30)
first = inst.evaluate(frames)
out = np.empty_like(first)
start = time.time()
rows = []
for k in range(1, calls + 1):
    # Half the calls fill a caller's array, half return a new one.
    last = inst.evaluate(frames, out=out) if k % 2 else inst.evaluate(frames)
    if k % max(1, calls // 10) == 0:
        rows.append((k, time.time() - start) + sample())
for k, t, rss, handles, threads in rows:
    print(f"call {k}: {t:.0f} s, {rss} kB, {handles} handles, {threads} threads")
base = rows[0][2]
print(f"resident growth after the first tenth: {100 * (rows[-1][2] - base) / base:.2f} %")
same = np.array_equal(first.view(np.uint32), last.view(np.uint32))
print("the last call's matrices are the first's, bit for bit" if same else "the last call differs")
sys.exit(0 if same else 1)
