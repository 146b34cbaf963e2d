#!/usr/bin/env bash
# 8 x H200: the generic kernels (world size known at run time, allreduce.ptx) on 3, 5, 6 and 7
# ranks: diagnostics checks on 6 and 3 ranks with the host path forced on (so twoshot_wsh is
# checked too), selftests with the defaults and with the host path and flag kernels forced from
# 16 bytes, and the TP6 sweep against NCCL.
# Usage: bash bench/results/2026-11-22-8xH200-tp8/scripts/run78.sh
#   Runs from any folder; needs 8 NVIDIA GPUs connected by NVLink and the environment below.
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
R="$WORK/r78"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx8g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r78.tar.gz" -C "$WORK" r78
}
cd "$R"
D="bash $ROOT/bench/cuda-diagnostics.sh $G"
mkdir -p diag6 diag3
GPUCOMM_HOST_PATH=on step diag6 150 $D 6 "$R/diag6" --check
GPUCOMM_HOST_PATH=on step diag3 120 $D 3 "$R/diag3" --check
for world in 3 5 6 7; do
  step "selftest-tp$world" 90 "$G" selftest --device cuda --world "$world"
  GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
    step "selftest-host-tp$world" 90 "$G" selftest --device cuda --world "$world"
done
step bench-tp6 120 "$G" bench --device cuda --world 6 --tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192 --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp6-trtllm --out "$R/tp6-trtllm"
cat "$R/steps.txt"
grep -E "communicator:|check:|diagnostics:" "$R/diag6/tp6.rank0.log" "$R/diag3/tp3.rank0.log"
grep -h "selftest" "$R"/selftest-*.log
sed -n '/## Latency/,/## Eager/p' "$R/tp6-trtllm/report.md" | grep "^| ("
