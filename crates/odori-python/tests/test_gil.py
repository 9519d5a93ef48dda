"""Evaluation releases the GIL: while one thread is inside a batch call in Rust, another
thread runs Python code and reads odori.evaluations_in_flight() > 0. Were the GIL held for
the whole call, no Python thread could run between its entry and its exit, so the count
could never be read as non-zero: the check does not depend on timings."""

import threading
import time

import numpy as np

import odori
from conftest import shared


def test_evaluate_releases_the_gil():
    model = odori.Model.load(shared("gene/Gene_light.pmx"))
    inst = odori.Instance(model, odori.Motion.load(model, shared("wavefile/wavefile_v2.vmd")))
    frames = np.arange(2810, dtype=np.float32)
    done = threading.Event()

    def work():
        for _ in range(5):
            inst.evaluate(frames)
        done.set()

    seen = 0
    polls = 0
    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        seen = max(seen, odori.evaluations_in_flight())
        polls += 1
    t.join()
    assert polls > 0
    assert seen >= 1, f"{polls} polls never saw an evaluation in flight: the GIL is held"


def test_two_threads_overlap():
    """Two threads evaluating at once: reports their wall time against one thread doing
    both calls (informative), and requires both calls to have run (same bits)."""
    model = odori.Model.load(shared("gene/Gene_light.pmx"))
    inst = odori.Instance(model, odori.Motion.load(model, shared("wavefile/wavefile_v2.vmd")))
    frames = np.arange(2810, dtype=np.float32)
    t = time.perf_counter()
    ref = [inst.evaluate(frames), inst.evaluate(frames)]
    one = time.perf_counter() - t
    out = [None, None]
    peak = [0]

    def work(i):
        out[i] = inst.evaluate(frames)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    while any(th.is_alive() for th in threads):
        peak[0] = max(peak[0], odori.evaluations_in_flight())
    two = time.perf_counter() - t
    print(f"2 calls: one thread {one:.3f} s, two threads {two:.3f} s; most in flight at once: {peak[0]}")
    for a in out:
        assert np.array_equal(a.view(np.uint32), ref[0].view(np.uint32))
