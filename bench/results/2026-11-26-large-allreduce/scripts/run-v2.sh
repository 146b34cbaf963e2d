#!/usr/bin/env bash
# Does the cost of a pass decide the 2 GiB point? Sweeps bf16 all-reduce from 128 MiB to 2 GiB on
# 2 GPUs with NCCL and oneshot in the same run (CUDA graphs and eager, 50 timed calls after 10
# warm-up calls, every point validated), once with the default 64 MiB peer buffer (32 passes at
# 2 GiB) and once with the largest, 256 MiB (8 passes). On an H200 host it first runs the fabric
# sweep's intra-node matrix (../../2026-11-26-fabric-sweep/scripts/run-gpu.sh).
# Usage: bash bench/results/2026-11-26-large-allreduce/scripts/run-v2.sh   (optional: RUN, BUFFERS)
#   BUFFERS  peer buffer sizes in MiB to compare (default "64 256"); environment as in run.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-large-passes}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
head -3 "$R/host.txt"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  OUT="$OUT/fabric" bash "$ROOT/bench/results/2026-11-26-fabric-sweep/scripts/run-gpu.sh"
fi
# the ranks hold host copies of a 2 GiB input and output for validation
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
for mib in ${BUFFERS:-64 256}; do
  step "buffer-$mib" 240 env GPUCOMM_PEER_BUFFER_BYTES=$((mib << 20)) "$G" bench --device cuda --world 2 \
    --dtype bf16 -b 128M -e 2G -f 2 -n 50 -w 10 --algorithms nccl,oneshot \
    --name "buffer-$mib" --out "$R/buffer-$mib"
  # graph medians, then eager
  sed -n '/^## Latency/,/^## nccl-tests view/p' "$R/buffer-$mib/report.md" | grep '^| ('
  cp "$R/buffer-$mib/report.md" "$OUT/buffer-$mib-report.md" 2>/dev/null
  cp "$R/buffer-$mib/report.json" "$OUT/buffer-$mib-report.json" 2>/dev/null
done
cp "$R/steps.txt" "$OUT/steps.txt"
