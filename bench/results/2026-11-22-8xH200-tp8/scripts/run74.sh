#!/usr/bin/env bash
# 8 x H200: NVLink all-to-all with every GPU sending to one peer at a time (a permutation of the
# GPUs) against all peers at once, on 8, 4 and 2 GPUs of the host; PyTorch's all-reduce at TP8.
# Usage: bash bench/results/2026-11-22-8xH200-tp8/scripts/run74.sh
#   Runs from any folder; needs 8 NVIDIA GPUs connected by NVLink and the environment below.
#   PROBES  the bench/probes binaries (default $GPURUN/probes), built with
#           nvcc -O3 -arch=sm_90 -cudart static -o $PROBES/NAME bench/probes/NAME.cu
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
PROBES="${PROBES:-$B/probes}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
W="$ROOT"
R="$WORK/r74"
mkdir -p "$R"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r74.tar.gz" -C "$WORK" r74
}
step a2a-8 90 "$PROBES/nvlink-all-to-all" --mib 64
CUDA_VISIBLE_DEVICES=0,1,2,3 step a2a-4 90 "$PROBES/nvlink-all-to-all" --mib 64
CUDA_VISIBLE_DEVICES=0,1 step a2a-2 90 "$PROBES/nvlink-all-to-all" --mib 64
step torch-tp8 240 python3 "$W/bench/compare-torch.py" --world 8 --tokens 32,64,128,256,512,1024,2048,4096 --json "$R/torch-tp8.json"
cat "$R/steps.txt"
for n in 8 4 2; do echo "== $n"; grep -E "^sm|^ce" "$R/a2a-$n.log"; done
tail -30 "$R/torch-tp8.log"
