#!/usr/bin/env bash
# 2 x H200 (kernel variants: trace or not, host code or not, host chunks reduced by the pushing team): where the runtime host path's time goes (per-step CUDA-event timelines on each rank),
# with the staged words in host memory (default) or in device memory, and with the kernel not
# waiting for the host chunks; then the bench of the untimed-events head and the prototype.
# Usage: bash bench/results/2026-11-22-2xH200-host-path-runtime/scripts/run61.sh
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
R="$WORK/r61"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
save() { tar -czf "$OUT/r61.tar.gz" -C "$WORK" r61; }
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
Z="GPUCOMM_HOST_PATH_KERNEL_WAITS=zero GPUCOMM_HOST_PATH_COPIES=none GPUCOMM_HOST_PATH_STREAMS=off"
for k in oneshot_wsh oneshot_wsh_nt oneshot_wsh_nh oneshot_wsh_nhnt oneshot_wsh_p; do
  diag ko-$k $Z GPUCOMM_WSH_KERNEL=$k -- --timeline
done
for k in oneshot_wsh_nt oneshot_wsh_p oneshot_wsh_pnt; do
  diag hp-$k GPUCOMM_WSH_KERNEL=$k -- --timeline
done
cat "$R/steps.txt"
for f in "$R"/ko-*/tp2.rank0.log "$R"/hp-*/tp2.rank0.log; do echo "=== $f"; grep -A22 "oneshot_wsh, 4096" "$f" | grep "period\|received 1\|kernel" | grep -v "epoch\|last block"; done
grep -h -A2 "oneshot_ws, 4096 tokens (67" "$R"/ko-oneshot_wsh/tp2.rank0.log
