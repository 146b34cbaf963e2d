#!/usr/bin/env bash
# run.sh with the CPU backend's ranks bound to CPUs of their own (GPUCOMM_CPU_BIND=core, the
# default) and left to the scheduler (GPUCOMM_CPU_BIND=none), alternately, RUNS times each; the
# anchors run every time too.
#   bench/results/2026-11-26-cpu-anchors/scripts/bind.sh   (from the repository root, built)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-$(mktemp -d)}"
RUNS="${RUNS:-3}"
for run in $(seq "$RUNS"); do
  for mode in core none; do
    echo "=== round $run, GPUCOMM_CPU_BIND=$mode, load $(cut -d' ' -f1-3 /proc/loadavg)"
    GPUCOMM_CPU_BIND="$mode" RUNS=1 OUT="$OUT/$mode-$run" "$here/run.sh"
  done
done
