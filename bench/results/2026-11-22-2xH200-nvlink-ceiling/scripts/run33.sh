#!/usr/bin/env bash
# 2 x H200: prototype of a flag-free (with poll back-off) warp-specialized one-shot (16, 32, 64 MiB), then the CUDA
# diagnostics' bench (every kernel of the runtime, NCCL) in the same session for comparison.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r33
mkdir -p "$R/diag" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
for mib in 64 32 16; do
  timeout 120 "$B/probes/lamport-oneshot-ws" --mib $mib --calls 10 --samples 30 >"$R/lamport-ws-${mib}mib.txt" 2>&1
  echo "lamport-ws $mib: exit $?" >>"$R/steps.txt"
done
timeout 200 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/diag" --bench --samples 100 --json "$R/diag/bench.json" >"$R/diag.log" 2>&1
echo "diag: exit $?" >>"$R/steps.txt"
tar -czf "$OUT/r33.tar.gz" -C /tmp r33
cat "$R/steps.txt" "$R"/lamport-ws-*.txt
grep -E " (16777216|33554432|67108864) " "$R/diag/tp2.rank0.log" | head -24
