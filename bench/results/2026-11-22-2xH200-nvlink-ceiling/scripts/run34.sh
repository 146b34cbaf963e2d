#!/usr/bin/env bash
# 2 x H200: NVLink writes shared between a copy engine and SM stores at once (64 and 32 MiB).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r34
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
for mib in 64 32; do
  timeout 120 "$B/probes/nvlink-stores" --mib $mib --mix >"$R/mix-${mib}mib.txt" 2>&1
  echo "mix $mib: exit $?" >>"$R/steps.txt"
done
tar -czf "$OUT/r34.tar.gz" -C /tmp r34
cat "$R/steps.txt" "$R"/mix-*.txt
