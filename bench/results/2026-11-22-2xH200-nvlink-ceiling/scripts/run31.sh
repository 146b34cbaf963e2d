#!/usr/bin/env bash
# 2 x H200: prototype of a copy-engine one-shot all-reduce (64 and 16 MiB; 1, 2 or 4 copy streams;
# chunk counts; eager and graph), checked against a double-precision reference.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r31
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
for mib in 64 16; do
  timeout 120 "$B/probes/copy-engine-oneshot" --mib $mib --calls 10 --samples 30 >"$R/ce-oneshot-${mib}mib.txt" 2>&1
  echo "ce-oneshot $mib: exit $?" >>"$R/steps.txt"
done
tar -czf "$OUT/r31.tar.gz" -C /tmp r31
cat "$R/steps.txt" "$R"/ce-oneshot-*.txt
