#!/bin/bash
# Copy engine to a fixed GPU g + k, and the next GPU's part by the copy engine beside SM stores.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
./.gpurun/probes/nvlink-all-to-all --mib 64 --calls 10 --samples 30 2>&1 | grep -v "^mix copy\|rounds\|pull" | tee $OUT/a2a-tp4.txt
./.gpurun/probes/nvlink-all-to-all --mib 32 --calls 10 --samples 30 2>&1 | grep -v "^mix copy\|rounds\|pull" | tee $OUT/a2a-tp4-32.txt
