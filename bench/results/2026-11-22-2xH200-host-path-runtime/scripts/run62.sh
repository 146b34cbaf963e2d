#!/usr/bin/env bash
# 2 x H200 (host path share x chunks x kernel variant, bench without timelines): where the runtime host path's time goes (per-step CUDA-event timelines on each rank),
# with the staged words in host memory (default) or in device memory, and with the kernel not
# waiting for the host chunks; then the bench of the untimed-events head and the prototype.
# Usage: bash bench/results/2026-11-22-2xH200-host-path-runtime/scripts/run62.sh
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
R="$WORK/r62"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
save() { tar -czf "$OUT/r62.tar.gz" -C "$WORK" r62; }
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
for k in oneshot_wsh_nt oneshot_wsh_pnt; do
  for c in 2 4 8; do
    for sh in 0.04 0.05 0.06 0.07; do
      diag b-$k-c$c-s$sh GPUCOMM_WSH_KERNEL=$k GPUCOMM_HOST_PATH_CHUNKS=$c GPUCOMM_HOST_PATH_SHARE=$sh -- --bench --samples 30 --runners kernel:oneshot_ws,kernel:oneshot_wsh --tokens 4096
    done
  done
done
diag full-pnt-c4 GPUCOMM_WSH_KERNEL=oneshot_wsh_pnt GPUCOMM_HOST_PATH_CHUNKS=4 -- --bench --samples 50 --runners kernel:oneshot_ws,kernel:oneshot_wsh,oneshot --tokens 1024,2048,4096
cat "$R/steps.txt"
for d in "$R"/b-*/ "$R"/full-*/; do echo "== $(basename $d) $(grep -h "kernel:oneshot_wsh\|kernel:oneshot_ws \| oneshot " $d/tp2.rank0.log | awk '{printf "%s %s %s %s | ", $1, $3, $4, $5}')"; done
