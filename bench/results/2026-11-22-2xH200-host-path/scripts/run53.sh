#!/usr/bin/env bash
# 2 x H200: the runtime's host path with its share cut on 256-byte boundaries ("aligned"), and the
# same with the copy streams' waits flushing remote writes ("flush"), alternating; "aligned" once
# more without programmatic dependent launch.
# Usage: bash bench/results/2026-11-22-2xH200-host-path/scripts/run53.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   GPURUN  staging folder for what the repository does not hold (default .gpurun at the
#           repository root):
#           variants/*.jar (runtime jars built from the exploration diffs, git history)
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
R="$WORK/r53"
mkdir -p "$R" $WORK/base && tar -xJf "$BUNDLE" -C $WORK/base
for v in aligned flush; do
  cp -r $WORK/base "$WORK/$v" && cp "$B/variants/$v.jar" "$WORK/$v/gpucomm/lib/gpucomm-runtime-0.1.0-SNAPSHOT.jar"
done
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
diag() {  # diag NAME VARIANT ARGS...
  local name="$1" v="$2" start=$SECONDS
  shift 2
  mkdir -p "$R/$name"
  timeout 90 bash "$ROOT/bench/cuda-diagnostics.sh" "$WORK/$v/gpucomm/bin/gpucomm" 2 "$R/$name" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r53.tar.gz" -C "$WORK" r53
}
diag aligned-1 aligned --bench --samples 30
diag flush-1 flush --bench --samples 30
diag aligned-2 aligned --bench --samples 30
diag flush-2 flush --bench --samples 30
GPUCOMM_PDL=off diag aligned-nopdl aligned --bench --samples 30
cat "$R/steps.txt"
for d in aligned-1 flush-1 aligned-2 flush-2 aligned-nopdl; do
  echo "== $d"; grep -E "communicator:" "$R/$d/tp2.rank0.log"; grep -E "^ *(1024|2048|4096) +[0-9]+ .*(oneshot_ws|oneshot_wsh|oneshot ) " "$R/$d/tp2.rank0.log"
done
