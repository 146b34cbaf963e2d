#!/usr/bin/env bash
# 4 x H200: the flag-free Lamport kernels at large sizes (their buffers sized to 64 MiB through
# GPUCOMM_LAMPORT_MAX_BYTES / GPUCOMM_LAMPORT2_MAX_BYTES) against the default flag kernels.
# Usage: bash bench/results/2026-11-22-4xH200-lamport-spread/scripts/run9.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r9"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
L=(--tokens 256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r9.tar.gz" -C "$WORK" r9
}
cd "$R"
step tp4-flag 40 "$G" bench --device cuda --world 4 "${L[@]}" --algorithms twoshot --name tp4-flag --out "$R/tp4-flag"
GPUCOMM_LAMPORT2_MAX_BYTES=67108864 step tp4-lamport2 40 "$G" bench --device cuda --world 4 "${L[@]}" --algorithms twoshot --name tp4-lamport2 --out "$R/tp4-lamport2"
step tp2-flag 40 "$G" bench --device cuda --world 2 "${L[@]}" --algorithms oneshot,twoshot --name tp2-flag --out "$R/tp2-flag"
GPUCOMM_LAMPORT_MAX_BYTES=67108864 GPUCOMM_LAMPORT2_MAX_BYTES=67108864 step tp2-lamport 40 "$G" bench --device cuda --world 2 "${L[@]}" --algorithms oneshot,twoshot --name tp2-lamport --out "$R/tp2-lamport"
cat "$R/steps.txt"
for d in tp4-flag tp4-lamport2 tp2-flag tp2-lamport; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| ("; done
