#!/usr/bin/env bash
# 4 x H200: the copy engine + SM stores one-shot prototype on GPUs 0 and 1 (64, 32, 16 MiB), and
# every GPU to its three peers with a share of the bytes on the copy engines.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r44
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
P="$B/probes"
step() {
  local name="$1"
  shift
  timeout 200 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $?" >>"$R/steps.txt"
}
CUDA_VISIBLE_DEVICES=0,1 step hybrid-64mib "$P/hybrid-oneshot-ws" --mib 64
CUDA_VISIBLE_DEVICES=0,1 step hybrid-32mib "$P/hybrid-oneshot-ws" --mib 32
CUDA_VISIBLE_DEVICES=0,1 step hybrid-16mib "$P/hybrid-oneshot-ws" --mib 16
step all-to-all-mix "$P/nvlink-all-to-all" --mib 64
tar -czf "$OUT/r44.tar.gz" -C /tmp r44
cat "$R/steps.txt"
grep -h "graph\|GB/s per GPU" "$R"/hybrid-64mib.txt "$R"/all-to-all-mix.txt | head -90
