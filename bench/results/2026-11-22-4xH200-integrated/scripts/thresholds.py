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
