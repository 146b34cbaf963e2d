#!/usr/bin/env bash
# 4 x H200: what a ring's traffic gets (every GPU pushing to its next GPU only, or half to the next
# and half to the previous) against the all-to-all of the two-shot, on 4 and 2 GPUs.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r76
mkdir -p "$R"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r76.tar.gz" -C /tmp r76
}
{ nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
step a2a-4 90 "$B/probes/nvlink-all-to-all" --mib 64
CUDA_VISIBLE_DEVICES=0,1 step a2a-2 90 "$B/probes/nvlink-all-to-all" --mib 64
cat "$R/steps.txt"
for n in 4 2; do echo "== $n"; grep -E "^sm|^ce" "$R/a2a-$n.log"; done
