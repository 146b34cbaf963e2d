#!/usr/bin/env bash
# 2 x H200: the CUDA diagnostics after their split into checks, timing and sweeps: every part run
# (--check, --bench, --tune grids, --tune-chunks) at TP2.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r41
mkdir -p "$R/diag" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
start=$SECONDS
timeout 400 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check --bench --samples 50 --tune --json "$R/diag/all.json" >"$R/diag.log" 2>&1
echo "diag: exit $? after $((SECONDS - start)) s" >>"$R/steps.txt"
tar -czf "$OUT/r41.tar.gz" -C /tmp r41
cat "$R/steps.txt"
grep -E "check:|diagnostics:|host cost" "$R/diag/tp2.rank0.log"
grep -E " 67108864 " "$R/diag/tp2.rank0.log" | head -30
grep -c "" "$R/diag/all.json"
