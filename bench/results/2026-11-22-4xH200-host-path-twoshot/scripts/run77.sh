#!/usr/bin/env bash
# 4 x H200: the host path's two-rank rule in one place (HostPath.Route.runsOn) and the timelines' kernel names: checks on
# 4 and 2 ranks with the 64 MiB comparison (kernels with and without the host path), selftests with
# the host path forced on 4 and 2 ranks.
# Usage: bash bench/results/2026-11-22-4xH200-host-path-twoshot/scripts/run77.sh
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
R="$WORK/r77"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r77.tar.gz" -C "$WORK" r77
}
cd "$R"
D="bash $ROOT/bench/cuda-diagnostics.sh $G"
mkdir -p diag4 diag2
step diag4 120 $D 4 "$R/diag4" --check --bench --samples 100 --runners nccl,kernel:twoshot_ws,kernel:twoshot_wsh,twoshot --tokens 4096 --json "$R/diag4/bench.json"
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 60 "$G" selftest --device cuda --world 2
step diag2 90 $D 2 "$R/diag2" --check --bench --samples 100 --runners nccl,kernel:oneshot_ws,kernel:oneshot_wsh,oneshot --tokens 4096 --json "$R/diag2/bench.json"
mkdir -p timeline4 timeline2
step timeline4 60 $D 4 "$R/timeline4" --timeline
step timeline2 60 $D 2 "$R/timeline2" --timeline
cat "$R/steps.txt"
grep -E "check:|diagnostics:" "$R/diag4/tp4.rank0.log" | head -8
grep -E "check:|diagnostics:" "$R/diag2/tp2.rank0.log" | tail -3
grep -E "^ *4096 +[0-9]+ " "$R/diag4/tp4.rank0.log" "$R/diag2/tp2.rank0.log"
grep -h "selftest" "$R"/selftest-*.log | tail -2
grep -E "^(oneshot|twoshot)_ws[h]?, 4096" "$R/timeline4/tp4.rank0.log" "$R/timeline2/tp2.rank0.log" | head
