#!/usr/bin/env bash
# 2 x H200: the CUDA diagnostics' checks after their runs go through one session call.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r43
mkdir -p "$R/diag" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
start=$SECONDS
timeout 200 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check --bench --samples 20 --json "$R/diag/all.json" >"$R/diag.log" 2>&1
echo "diag: exit $? after $((SECONDS - start)) s" >>"$R/steps.txt"
tar -czf "$OUT/r43.tar.gz" -C /tmp r43
cat "$R/steps.txt"
grep -E "check:|diagnostics:" "$R/diag/tp2.rank0.log"
grep -E " 67108864 " "$R/diag/tp2.rank0.log" | head -8
