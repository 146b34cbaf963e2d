#!/usr/bin/env bash
# The README's first command, RUNS times in a row, each followed by Open MPI's MPI_Allreduce at
# 16 KiB and 1 MiB (the host's own drift between runs): prints each run's latency table rows.
#   bench/results/2026-11-26-cpu-anchors/scripts/quickstart.sh   (from the repository root, built)
# Needs: openmpi-bin libopenmpi-dev (Debian).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
OUT="${OUT:-$(mktemp -d)}"
RUNS="${RUNS:-6}"
mkdir -p "$OUT"
mpicc -O2 -o "$OUT/mpi_allreduce" "$here/mpi_allreduce.c"
for run in $(seq "$RUNS"); do
  echo "== run $run, load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$root/gpucomm" run -f "$root/examples/allreduce-sweep.yaml" --out "$OUT/run-$run" 2>/dev/null |
    grep '^| ('
  mpirun --allow-run-as-root --oversubscribe -np 2 --mca btl self,vader \
    "$OUT/mpi_allreduce" 200 200 16384 1048576
done
