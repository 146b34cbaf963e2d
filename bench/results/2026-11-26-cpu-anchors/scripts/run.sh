#!/usr/bin/env bash
# The CPU backend's all-reduce beside Open MPI and gloo: two processes on this host, 16 KiB and
# 1 MiB per rank, 200 warm-up and 200 timed calls each; RUNS times, to show run-to-run spread.
#   bench/results/2026-11-26-cpu-anchors/scripts/run.sh   (from the repository root, built)
# Needs: openmpi-bin libopenmpi-dev python3-torch (Debian), /usr/bin/python3.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
RUNS="${RUNS:-3}"
SIZES=(16384 1048576)

mpicc -O2 -o "$OUT/mpi_allreduce" "$here/mpi_allreduce.c"
for run in $(seq "$RUNS"); do
  echo "== run $run"
  mpirun --allow-run-as-root --oversubscribe -np 2 --mca btl self,vader \
    "$OUT/mpi_allreduce" 200 200 "${SIZES[@]}"
  /usr/bin/python3 "$here/gloo_allreduce.py" 200 200 "${SIZES[@]}" 2>/dev/null
  "$root/gpucomm" bench --device cpu --world 2 --sizes 16K,1M --warmup 200 --iterations 200 \
    --name "cpu-anchors-$run" --out "$OUT/gpucomm-$run" | grep '^| (' 
done
