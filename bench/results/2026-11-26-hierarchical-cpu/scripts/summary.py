"""Reads the reports of run.sh and prints the in-pod rate, the link limit or the README's table.

The bound of each algorithm is the time its busiest pod link needs for the bytes it must carry in
one direction (see the README's model): partial sums cross in fp32, results in the element type,
and the link's rate counts Ethernet, IP and TCP headers (1514 bytes on the wire per 1448 of data).
"""

import json
import sys

WIRE_EFFICIENCY = 1448 / 1514
ELEMENT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
PARTIAL_BYTES = 4


def load(path):
    with open(path) as f:
        return json.load(f)


def measurements(report):
    """The largest size's bytes and its measurements by algorithm (the small one is warm-up)."""
    size = max(report["sizes"], key=lambda s: s["bytes"])
    return size["bytes"], {m["algorithm"]: m for m in size["measurements"]}


def in_pod_gbps(report):
    _, by_algorithm = measurements(report)
    return max(m["busBandwidthGBps"] for m in by_algorithm.values())


def link_bytes(algorithm, size, world, ranks_per_pod, dtype):
    """Bytes that cross one pod's link in each direction during one all-reduce."""
    both_halves = 1 + PARTIAL_BYTES / ELEMENT_BYTES[dtype]
    if algorithm == "ring":
        # ranks sit in the ring in rank order, so one ring edge leaves each pod
        return (world - 1) / world * size * both_halves
    pods = world // ranks_per_pod
    # one ring across pods per local rank, each over a 1/ranks_per_pod shard
    return (pods - 1) / pods * size * both_halves


def table(in_pod, unlimited, limited, rate_mbit, pods):
    link = rate_mbit * 1e6 / 8 * WIRE_EFFICIENCY
    rows = [
        "| links | algorithm | median (ms) | busbw (GB/s) | bound (GB/s) | of bound |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    size, by_algorithm = measurements(in_pod)
    for algorithm, m in by_algorithm.items():
        rows.append(
            f"| in one pod, 2 ranks | {algorithm} | {m['eagerMicros'] / 1e3:.1f} "
            f"| {m['busBandwidthGBps']:.3f} | | |"
        )
    speedups = []
    for label, report in (("unlimited", unlimited), (f"{rate_mbit} Mbit/s", limited)):
        size, by_algorithm = measurements(report)
        world, ranks_per_pod = report["worldSize"], report["ranksPerPod"]
        times = {}
        for algorithm, m in by_algorithm.items():
            times[algorithm] = m["eagerMicros"]
            bound = ""
            share = ""
            if report is limited:
                seconds = link_bytes(algorithm, size, world, ranks_per_pod, report["dtype"]) / link
                bound_gbps = size * 2 * (world - 1) / world / seconds / 1e9
                bound = f"{bound_gbps:.3f}"
                share = f"{m['busBandwidthGBps'] / bound_gbps:.0%}"
            rows.append(
                f"| {pods} pods x {ranks_per_pod}, {label} | {algorithm} "
                f"| {m['eagerMicros'] / 1e3:.1f} | {m['busBandwidthGBps']:.3f} | {bound} | {share} |"
            )
        speedups.append(f"{label}: hierarchical {times['ring'] / times['hierarchical']:.2f}x ring")
    return "\n".join(rows + ["", "; ".join(speedups)])


def main(args):
    if args[0] == "--in-pod":
        print(f"{in_pod_gbps(load(args[1])):.3f} GB/s busbw")
    elif args[0] == "--tenth-of-in-pod":
        print(round(in_pod_gbps(load(args[1])) * 8e3 / 10))
    elif args[0] == "--table":
        print(table(load(args[1]), load(args[2]), load(args[3]), int(args[4]), int(args[5])))
    else:
        sys.exit("usage: summary.py --in-pod R | --tenth-of-in-pod R | --table R R R MBIT PODS")


if __name__ == "__main__":
    main(sys.argv[1:])
