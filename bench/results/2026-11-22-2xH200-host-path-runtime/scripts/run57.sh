#!/usr/bin/env bash
# 2 x H200 (copies left out, or received elsewhere): where the runtime host path's time goes (per-step CUDA-event timelines on each rank),
# with the staged words in host memory (default) or in device memory, and with the kernel not
# waiting for the host chunks; then the bench of the untimed-events head and the prototype.
# Usage: bash bench/results/2026-11-22-2xH200-host-path-runtime/scripts/run57.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
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
R="$WORK/r57"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
save() { tar -czf "$OUT/r57.tar.gz" -C "$WORK" r57; }
diag() { # name, env..., -- args
  local name="$1" start=$SECONDS
  shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  mkdir -p "$R/$name"
  timeout 120 env "${envs[@]}" GPUCOMM_HOST_PATH_MIN_BYTES=33554432 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R/$name" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  save
}
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv >"$R/host.txt" 2>&1
diag tl-none GPUCOMM_HOST_PATH_COPIES=none -- --timeline
diag tl-out GPUCOMM_HOST_PATH_COPIES=out -- --timeline
diag tl-in GPUCOMM_HOST_PATH_COPIES=in -- --timeline
diag tl-scratch GPUCOMM_HOST_PATH_RECEIVE=scratch -- --timeline
diag tl-both X=1 -- --timeline
cat "$R/steps.txt"
for n in tl-none tl-out tl-in tl-scratch tl-both; do echo "=== $n"; for r in 0 1; do grep -A13 "oneshot_wsh, 4096" "$R/$n/tp2.rank$r.log" | grep "period\|rank\|received 1\|kernel end"; done; done
