#!/usr/bin/env bash
# On an H200 host: the gather study's run-v7.sh, which runs the fabric sweep's intra-node matrix
# (run-gpu.sh) first, then its selftests and the all-gather and reduce-scatter defaults from 64 KiB
# to 256 MiB per rank beside NCCL and the copy engines; then the large all-reduce study's quick
# sweep (QUICK=1 run.sh: 512 MiB to 2 GiB, nccl and oneshot). On any other host: gpucomm selftest
# on two GPUs, every case validated on every rank (ONLY_H200=1: nothing).
# Usage: bash bench/results/2026-11-26-fabric-sweep/scripts/run-h200-or-selftest.sh
#   BUNDLE, GPURUN, WORK, OUT as in run-gpu.sh.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  OUT="$OUT" bash "$ROOT/bench/results/2026-11-26-gather-scatter/scripts/run-v7.sh"
  OUT="$OUT/large" QUICK=1 bash "$ROOT/bench/results/2026-11-26-large-allreduce/scripts/run.sh"
elif [ -z "${ONLY_H200:-}" ]; then
  mkdir -p "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
  start=$SECONDS
  GPUCOMM_JAVA_OPTS="-Xmx16g" timeout 120 "$WORK/g/gpucomm/bin/gpucomm" selftest --device cuda --world 2 \
    >"$OUT/selftest.log" 2>&1
  echo "selftest: exit $? after $((SECONDS - start)) s"
  grep -E "selftest passed|failed" "$OUT/selftest.log" | tail -2
fi
