#!/usr/bin/env bash
# Four H200s: new kernels checked and measured, Lamport thresholds taken from the TP4 measurement,
# then gpucomm bench / selftest / tune at TP4 and TP2.
# Usage: bash bench/results/2026-11-22-4xH200-integrated/scripts/run-x4-final.sh
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
R="$WORK/results"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/results.tar.gz" -C "$WORK" results
}
cd "$R"
GPUCOMM_LAMPORT_MAX_BYTES=4194304 GPUCOMM_LAMPORT2_MAX_BYTES=4194304 \
  step diag-tp4 55 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R" --check --bench --json "$R/diag-tp4.json"
python3 "$HERE/thresholds.py" "$R/diag-tp4.json" >"$R/thresholds.sh" 2>>"$R/steps.txt" || echo "" >"$R/thresholds.sh"
cat "$R/thresholds.sh" >>"$R/steps.txt"
source "$R/thresholds.sh"
step bench-tp4-trtllm 35 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm --out "$R/tp4-trtllm"
step bench-tp4-vllm 20 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic vllm --name tp4-vllm --out "$R/tp4-vllm"
step diag-tp2 40 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 2 "$R" --check
step bench-tp2-trtllm 25 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp2-trtllm --out "$R/tp2-trtllm"
step bench-tp2-vllm 15 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic vllm --name tp2-vllm --out "$R/tp2-vllm"
step selftest-tp4 20 "$G" selftest --device cuda --world 4
step tune-tp4 25 "$G" tune -f "$HERE/tune-tp4.yaml" --out "$R/tune-tp4"
cp "$R/steps.txt" "$OUT/steps.txt"
