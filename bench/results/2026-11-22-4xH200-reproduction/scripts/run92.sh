#!/usr/bin/env bash
# 2 x H200: our NCCL at 16 MiB from graphs under NCCL settings that touch graph capture, against
# PyTorch's on the same host (and whether PyTorch's buffers register in graph capture).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
REPO="$PWD"
B="$PWD/.gpurun"
R=/tmp/r92
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r92.tar.gz" -C /tmp r92
}
cd "$R"
ours() { step "$1" 60 "$G" bench --device cuda --world 2 --tokens 1024,2048 --hidden 8192 --algorithms nccl --name "$1" --out "$R/$1"; }
ours default-1
NCCL_GRAPH_MIXING_SUPPORT=0 ours mixing-off
NCCL_LEGACY_CUDA_REGISTER=1 ours legacy-register
ours default-2
step torch 60 python3 "$REPO/bench/compare-torch.py" --world 2 --tokens 1024,2048 --json "$R/torch.json"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=REG step torch-reg 60 python3 "$REPO/bench/compare-torch.py" --world 2 --tokens 1024 --iterations 20 --warmup 2
for d in default-1 mixing-off legacy-register default-2; do echo "$d: $(grep 'MB |' $d/report.md | head -2 | awk -F'|' '{print $3 $4}' | tr '\n' ' ')"; done
grep torch_nccl torch.log
grep -i "regist" torch-reg.log | sort | uniq -c | sort -rn | head -5
