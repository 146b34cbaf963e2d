#!/usr/bin/env bash
# 2 x H200 (kernel trace: the host-path kernel alone, and without each cross-rank wait): where the runtime host path's time goes (per-step CUDA-event timelines on each rank),
# with the staged words in host memory (default) or in device memory, and with the kernel not
# waiting for the host chunks; then the bench of the untimed-events head and the prototype.
# Usage: bash bench/results/2026-11-22-2xH200-host-path-runtime/scripts/run60.sh
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
R="$WORK/r60"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
save() { tar -czf "$OUT/r60.tar.gz" -C "$WORK" r60; }
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
Z="GPUCOMM_HOST_PATH_KERNEL_WAITS=zero GPUCOMM_HOST_PATH_COPIES=none"
diag tl-kernelonly $Z GPUCOMM_HOST_PATH_STREAMS=off -- --timeline
diag tl-zero-nobusy $Z GPUCOMM_HOST_PATH_BUSY=off -- --timeline
diag tl-zero-nostaged $Z GPUCOMM_HOST_PATH_STAGED=off -- --timeline
diag tl-zero-nomemops $Z GPUCOMM_HOST_PATH_BUSY=off GPUCOMM_HOST_PATH_STAGED=off -- --timeline
cat "$R/steps.txt"
for n in tl-kernelonly tl-zero-nobusy tl-zero-nostaged tl-zero-nomemops; do echo "=== $n"; for r in 0 1; do grep -A22 "oneshot_wsh, 4096" "$R/$n/tp2.rank$r.log" | grep "period\|rank\|received 1\|kernel"; grep -A3 "oneshot_ws, 4096 tokens (63" "$R/$n/tp2.rank$r.log" | grep "period\|kernel end"; done; done
