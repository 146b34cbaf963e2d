#!/usr/bin/env bash
# 2 x H200: what a stream-to-stream hand-off through a word in memory costs (stream-handoff probe):
# words in GPU or host memory, one process or two, without copies or with 2 MiB and 256 KiB copies.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r82
mkdir -p "$R"
{ nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
timeout 120 "$B/probes/stream-handoff" --calls 200 --samples 30 --chunk-kib 2048 >"$R/handoff-2mib.log" 2>&1
echo "exit $?" >>"$R/handoff-2mib.log"
timeout 90 "$B/probes/stream-handoff" --calls 200 --samples 30 --chunk-kib 256 >"$R/handoff-256kib.log" 2>&1
echo "exit $?" >>"$R/handoff-256kib.log"
tar -czf "$OUT/r82.tar.gz" -C /tmp r82
cat "$R"/handoff-*.log
