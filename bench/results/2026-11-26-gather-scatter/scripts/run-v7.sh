#!/usr/bin/env bash
# The turn-taking kernels (GPUCOMM_GATHER_OVERLAP=off) as rewritten onto the shared round protocol
# (alternating_rounds): selftest on two ranks with them in 64 KiB rounds and in default rounds,
# every case validated on every rank against a float64 reference, and the all-gather from 16 to
# 256 MiB per rank beside NCCL and the overlapping default (compare "taking turns, 16 MiB" of the
# fifth version). On an H200 host it first runs the fabric sweep's intra-node matrix and the
# defaults' sweeps of both collectives from 64 KiB to 256 MiB per rank.
# Usage: bash bench/results/2026-11-26-gather-scatter/scripts/run-v7.sh   (optional: RUN)
#   BUNDLE, WORK, OUT as in run-v3.sh.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-gather-serial}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
head -3 "$R/host.txt"
H200=""
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && H200=1
[ -n "$H200" ] && OUT="$OUT/fabric" bash "$ROOT/bench/results/2026-11-26-fabric-sweep/scripts/run-gpu.sh"
selftest() { # name [env...]
  local name="$1"
  shift
  step "$name" 90 env "$@" "$G" selftest --device cuda --world 2
  grep -E "selftest passed|failed" "$R/$name.log" | tail -2
}
selftest selftest-serial-64k GPUCOMM_GATHER_OVERLAP=off GPUCOMM_GATHER_LL_MAX_BYTES=0 \
  GPUCOMM_GATHER_SINGLE_PASS_MAX_BYTES=0 GPUCOMM_ALLGATHER_ROUND_BYTES=65536 \
  GPUCOMM_REDUCESCATTER_ROUND_BYTES=65536
selftest selftest-serial GPUCOMM_GATHER_OVERLAP=off
sweep() { # name collective algorithms [env...]
  local name="$1" collective="$2" algorithms="$3"
  shift 3
  step "$name" 120 env "$@" "$G" bench --device cuda --world 2 --collective "$collective" \
    --sizes "$SIZES" --algorithms "$algorithms" --iterations 30 --warmup 10 \
    --name "$name" --out "$R/$name"
  echo "$name: bytes per rank, CUDA-graph medians (µs):"
  grep -A16 '## Latency' "$R/$name/report.md" | grep '^|'
  cp "$R/$name/report.md" "$OUT/$name-report.md" 2>/dev/null
}
SIZES=16M,32M,64M,128M,256M
sweep allgather-overlap allgather nccl,oneshot
sweep allgather-serial allgather oneshot GPUCOMM_GATHER_OVERLAP=off
if [ -n "$H200" ]; then
  SIZES=64K,128K,256K,512K,1M,2M,4M,8M,16M,32M,64M,128M,256M
  for collective in allgather reducescatter; do
    sweep "$collective-h200" "$collective" nccl,oneshot,copyengine
  done
fi
cat "$R/steps.txt"
