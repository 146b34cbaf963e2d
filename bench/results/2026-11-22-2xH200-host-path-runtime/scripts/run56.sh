#!/usr/bin/env bash
# 2 x H200: where the runtime host path's time goes (per-step CUDA-event timelines on each rank),
# with the staged words in host memory (default) or in device memory, and with the kernel not
# waiting for the host chunks; then the bench of the untimed-events head and the prototype.
# Usage: bash bench/results/2026-11-22-2xH200-host-path-runtime/scripts/run56.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   PROBES  the bench/probes binaries (default $GPURUN/probes), built with
#           nvcc -O3 -arch=sm_90 -cudart static -o $PROBES/NAME bench/probes/NAME.cu
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
PROBES="${PROBES:-$B/probes}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r56"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
save() { tar -czf "$OUT/r56.tar.gz" -C "$WORK" r56; }
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
diag tl-hostwords X=1 -- --timeline
diag tl-devicewords GPUCOMM_HOST_PATH_WORDS=device -- --timeline
diag tl-nowait GPUCOMM_HOST_PATH_KERNEL_WAITS=off -- --timeline
diag bench X=1 -- --bench --samples 30
timeout 100 "$PROBES/hybrid-oneshot-ws" --mib 64 --samples 30 --host-words >"$R/proto-words-64mib.txt" 2>&1
echo "proto: exit $? (total $SECONDS s)" >>"$R/steps.txt"
save
cat "$R/steps.txt"
for n in tl-hostwords tl-devicewords tl-nowait; do echo "=== $n"; cat "$R/$n/tp2.rank0.log" | grep -v "^WARN\|^$" | head -120; done
grep -E "^ *(2048|4096) +[0-9]+ .*(oneshot_ws|oneshot_wsh|oneshot ) " "$R/bench/tp2.rank0.log"
grep -h "share=0.0[06] copy-chunks=[02] sm-chunks=16 " "$R/proto-words-64mib.txt"
