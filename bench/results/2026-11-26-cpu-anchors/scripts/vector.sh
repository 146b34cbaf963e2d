#!/usr/bin/env bash
# run.sh with the CPU backend's bf16 reductions on the Vector API (the default) and on the
# portable auto-vectorized path (GPUCOMM_CPU_VECTOR=off), alternately, RUNS times each; the
# anchors run every time too. Both paths give bit-identical results.
#   bench/results/2026-11-26-cpu-anchors/scripts/vector.sh   (from the repository root, built)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-$(mktemp -d)}"
RUNS="${RUNS:-3}"
for run in $(seq "$RUNS"); do
  for mode in on off; do
    echo "=== round $run, GPUCOMM_CPU_VECTOR=$mode, load $(cut -d' ' -f1-3 /proc/loadavg)"
    GPUCOMM_CPU_VECTOR="$mode" RUNS=1 OUT="$OUT/$mode-$run" "$here/run.sh"
  done
done
