#!/bin/bash
# Copy-engine rounds against SM all-to-all on 4 and 2 GPUs.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/host.txt
nvidia-smi topo -m >> $OUT/host.txt
./.gpurun/probes/nvlink-all-to-all --mib 64 --calls 10 --samples 30 2>&1 | tee $OUT/a2a-tp4.txt
CUDA_VISIBLE_DEVICES=0,1 ./.gpurun/probes/nvlink-all-to-all --mib 64 --calls 10 --samples 30 2>&1 | tee $OUT/a2a-tp2.txt
./.gpurun/probes/nvlink-all-to-all --mib 32 --calls 10 --samples 30 2>&1 | tee $OUT/a2a-tp4-32.txt
