#!/bin/bash
# TP4: host memory bandwidth per GPU with sets of GPUs at once, and a share of a two-shot's
# scatter through host memory beside NVLink.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -x
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv > $OUT/gpus.txt
nvidia-smi topo -m > $OUT/topo.txt 2>&1
lscpu > $OUT/lscpu.txt
numactl -H > $OUT/numa.txt 2>&1
chmod +x .gpurun/probes/pcie-all-to-all
.gpurun/probes/pcie-all-to-all --mib 64 --calls 10 --samples 30 > $OUT/pcie-all-to-all.txt 2>&1
echo rc=$? >> $OUT/pcie-all-to-all.txt
cat $OUT/topo.txt $OUT/pcie-all-to-all.txt
