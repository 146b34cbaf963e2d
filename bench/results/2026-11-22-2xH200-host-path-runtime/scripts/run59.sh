#!/usr/bin/env bash
# 2 x H200 (kernel trace: host bytes hidden from the kernel, 2 MiB-aligned share; SASS): where the runtime host path's time goes (per-step CUDA-event timelines on each rank),
# with the staged words in host memory (default) or in device memory, and with the kernel not
# waiting for the host chunks; then the bench of the untimed-events head and the prototype.
# Usage: bash bench/results/2026-11-22-2xH200-host-path-runtime/scripts/run59.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   GPURUN  staging folder for what the repository does not hold (default .gpurun at the
#           repository root):
#           allreduce-hp.cu (that round's allreduce.cu with exploration/knobs-and-kernel-trace.diff,
#           both in git history; today's source is runtime/cuda/src/main/cuda/allreduce.cu)
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r59"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
save() { tar -czf "$OUT/r59.tar.gz" -C "$WORK" r59; }
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
diag tl-zero GPUCOMM_HOST_PATH_KERNEL_WAITS=zero GPUCOMM_HOST_PATH_COPIES=none -- --timeline
diag tl-zero-copies GPUCOMM_HOST_PATH_KERNEL_WAITS=zero -- --timeline
diag tl-s0625 GPUCOMM_HOST_PATH_SHARE=0.0625 -- --timeline
diag tl-s0625-none GPUCOMM_HOST_PATH_SHARE=0.0625 GPUCOMM_HOST_PATH_COPIES=none -- --timeline
(cd $WORK && nvcc -cubin -arch=sm_90 -O3 -DGPUCOMM_WORLD=2 -o ar.cubin "$B/allreduce-hp.cu" && for k in oneshot_ws_bf16 oneshot_wsh_bf16; do cuobjdump -sass -fun gpucomm_$k ar.cubin > "$R/$k.sass"; done) >"$R/sass.log" 2>&1
save
cat "$R/steps.txt"
for n in tl-zero tl-zero-copies tl-s0625 tl-s0625-none; do echo "=== $n"; for r in 0 1; do grep -A22 "oneshot_wsh, 4096" "$R/$n/tp2.rank$r.log" | grep "period\|rank\|received 1\|kernel"; grep -A3 "oneshot_ws, 4096 tokens (63" "$R/$n/tp2.rank$r.log" | grep "period\|kernel end"; done; done
