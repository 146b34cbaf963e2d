#!/usr/bin/env bash
# 4 x H200: NVLink traffic from every GPU to every other at once (the two-shot's): SM stores,
# SM loads (pull), both at once, and copy engines; 64 and 32 MiB.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r38
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
for mib in 64 32; do
  timeout 120 "$B/probes/nvlink-all-to-all" --mib $mib --calls 10 --samples 30 >"$R/all-to-all-${mib}mib.txt" 2>&1
  echo "all-to-all $mib: exit $?" >>"$R/steps.txt"
done
tar -czf "$OUT/r38.tar.gz" -C /tmp r38
cat "$R/steps.txt" "$R"/all-to-all-*.txt
