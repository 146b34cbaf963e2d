#!/usr/bin/env bash
# The own-rows kernel without spills: fused_lamport2_own rewritten so that a thread's copies share
# one array across the row kinds and each vector is finished as soon as summed (0 bytes of spill
# at 122 registers, against 20 bytes at 128 before). First the kernel alone, old against new on
# one host: bench/probes/fused-twoshot.cu built twice, against fusion.cu of the commit before the
# change (PROBES/fused-twoshot-head) and of this one (PROBES/fused-twoshot), run alternately, each
# timing full (the runtime's fused_lamport2), own-rows (the probe's own copy, a control for the
# host) and runtime-own (the runtime's fused_lamport2_own); then run-v8.sh with this build (GPU
# tests, selftest, plain / own / spread / own again, PyTorch in the same run).
#   nvcc -O3 -arch=sm_90 -cudart static -o PROBES/fused-twoshot bench/probes/fused-twoshot.cu
#   (and the same against the earlier fusion.cu for fused-twoshot-head)
# Usage: PROBES=.gpurun/probe bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v9.sh
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROBES="${PROBES:-.gpurun/probe}"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
nvidia-smi -L
for round in 1 2; do
  for build in head new; do
    binary="$PROBES/fused-twoshot"
    [ "$build" = head ] && binary="$PROBES/fused-twoshot-head"
    echo "== probe $build, round $round"
    FUSED_TWOSHOT_MODES=full,own-rows,runtime-own timeout 150 "$binary" --calls 50 --samples 30 \
      | tee "$OUT/probe-$build-$round.txt" | grep -E "registers|MISMATCH" || true
    echo "exit ${PIPESTATUS[0]}"
  done
done
bash "$HERE/run-v8.sh"
