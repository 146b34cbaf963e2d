#!/usr/bin/env bash
# 4 x H200: our NCCL backend from graphs with NCCL's legacy-IPC registration of cuMemAlloc buffers
# (NCCL_LEGACY_CUDA_REGISTER=1) against the default, at TP4 and TP2, 16 to 64 MiB, beside our kernels.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r93
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r93.tar.gz" -C /tmp r93
}
cd "$R"
run() { step "$1" 60 "$G" bench --device cuda --world "$2" --tokens 1024,2048,4096 --hidden 8192 --algorithms nccl,oneshot,twoshot --name "$1" --out "$R/$1"; }
run tp4-default 4
NCCL_LEGACY_CUDA_REGISTER=1 run tp4-legacy-register 4
run tp2-default 2
NCCL_LEGACY_CUDA_REGISTER=1 run tp2-legacy-register 2
for d in tp4-default tp4-legacy-register tp2-default tp2-legacy-register; do echo "== $d"; grep -A6 '## Latency' $d/report.md | grep 'MB |'; grep -A6 '## Eager' $d/report.md | grep 'MB |'; done
