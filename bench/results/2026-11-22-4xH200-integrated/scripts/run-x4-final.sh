#!/usr/bin/env bash
# Four H200s: new kernels checked and measured, Lamport thresholds taken from the TP4 measurement,
# then gpucomm bench / selftest / tune at TP4 and TP2.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/results
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/results.tar.gz" -C /tmp results
}
cd "$R"
GPUCOMM_LAMPORT_MAX_BYTES=4194304 GPUCOMM_LAMPORT2_MAX_BYTES=4194304 \
  step diag-tp4 55 bash "$B/cuda-diagnostics.sh" "$G" 4 "$R" --check --bench --json "$R/diag-tp4.json"
python3 "$B/thresholds.py" "$R/diag-tp4.json" >"$R/thresholds.sh" 2>>"$R/steps.txt" || echo "" >"$R/thresholds.sh"
cat "$R/thresholds.sh" >>"$R/steps.txt"
source "$R/thresholds.sh"
step bench-tp4-trtllm 35 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm --out "$R/tp4-trtllm"
step bench-tp4-vllm 20 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic vllm --name tp4-vllm --out "$R/tp4-vllm"
step diag-tp2 40 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R" --check
step bench-tp2-trtllm 25 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp2-trtllm --out "$R/tp2-trtllm"
step bench-tp2-vllm 15 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic vllm --name tp2-vllm --out "$R/tp2-vllm"
step selftest-tp4 20 "$G" selftest --device cuda --world 4
step tune-tp4 25 "$G" tune -f "$B/tune-tp4.yaml" --out "$R/tune-tp4"
cp "$R/steps.txt" "$OUT/steps.txt"
