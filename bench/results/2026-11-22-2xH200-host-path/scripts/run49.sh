#!/usr/bin/env bash
# 2 x H200: whether the PCIe links (through pinned host memory) add bandwidth beside NVLink.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r49
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,pcie.link.gen.max,pcie.link.width.max --format=csv; nvidia-smi topo -m; lscpu | grep -E "Model name|NUMA node"; } >"$R/host.txt" 2>&1
P="$B/probes"
step() {
  local name="$1"
  shift
  timeout 200 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $? ($SECONDS s)" >>"$R/steps.txt"
}
step pcie-64mib "$P/pcie-beside-nvlink" --mib 64
step pcie-32mib "$P/pcie-beside-nvlink" --mib 32
tar -czf "$OUT/r49.tar.gz" -C /tmp r49
cat "$R/steps.txt" "$R/host.txt"
cat "$R/pcie-64mib.txt"
