#!/usr/bin/env bash
# 4 x H200: the sweep's first-point warm-up on GPUs now 20,000 calls at the small sizes (at most
# 16 GiB moved): eager and graph figures of TP2 and TP4, each sweep twice.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r88
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r88.tar.gz" -C /tmp r88
}
cd "$R"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
for world in 2 4; do
  for rep in a b; do
    step "tp$world-trtllm-$rep" 120 "$G" bench --device cuda --world $world "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name "tp$world-trtllm-$rep" --out "$R/tp$world-trtllm-$rep"
  done
  step "tp$world-vllm" 120 "$G" bench --device cuda --world $world "${T[@]}" --algorithms auto --heuristic vllm --name "tp$world-vllm" --out "$R/tp$world-vllm"
done
for d in tp*/; do echo "== $d"; grep -A10 '## Eager' "$d/report.md" | grep "MB |" | head -3; grep -A10 '## Latency' "$d/report.md" | grep "MB |" | head -3; done
