"""Prints `export GPUCOMM_LAMPORT_MAX_BYTES=... GPUCOMM_LAMPORT2_MAX_BYTES=...`: the largest size up to
which each Lamport kernel beat its flag kernel from CUDA graphs in a diagnostics JSON.

usage: python3 thresholds.py DIAGNOSTICS.json   (written by cuda-diagnostics.sh --json; see run-x4-final.sh)
"""
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r.get("kind") == "allreduce"]
def graph(runner, size):
    for r in rows:
        if r["runner"] == runner and r["bytes"] == size:
            return r["graphMicros"]
    return None
sizes = sorted({r["bytes"] for r in rows})
def threshold(fast, slow):
    best = 0
    for size in sizes:
        a, b = graph(fast, size), graph(slow, size)
        if a is None or b is None or a >= b:
            break
        best = size
    return best
print(f"export GPUCOMM_LAMPORT_MAX_BYTES={threshold('kernel:lamport', 'kernel:oneshot')} "
      f"GPUCOMM_LAMPORT2_MAX_BYTES={threshold('kernel:lamport2', 'kernel:twoshot')}")
