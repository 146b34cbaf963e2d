#!/usr/bin/env bash
# Whether the way bench/probes/trtllm-fusion.cu checks its outputs moves TensorRT-LLM's timings:
#   first     the probe as first committed (667fa824): graph, eager, then a check of the eager
#             run's last call
#   unsettled the probe as committed: outputs filled with NaN right before each measurement, graph
#             and eager each checked
#   settled   the same with 3000 untimed calls between the fill and each measurement
#             (TRTLLM_FUSION_SETTLING_CALLS=3000; they overwrite the fill, so the graph check
#             cannot tell whether the graph wrote: timing only)
#   uncleared settled without the NaN fill (TRTLLM_FUSION_CLEAR=0)
# alternately on one host, twice each, 10 calls a graph. Build the first with
# git show 667fa824:bench/probes/trtllm-fusion.cu (as PROBES/trtllm-fusion-first) and the
# committed one as run-v10.sh says. Under 200 s on 2 GPUs.
# Usage: PROBES=.gpurun/probe bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v12.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
PROBES="${PROBES:-.gpurun/probe}"
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
nvidia-smi -L
for round in 1 2; do
  for variant in first unsettled settled uncleared; do
    echo "== $variant, round $round"
    case "$variant" in
      first) timeout 60 "$PROBES/trtllm-fusion-first" --calls 10 --samples 30 ;;
      unsettled) TRTLLM_FUSION_SETTLING_CALLS=0 timeout 60 "$PROBES/trtllm-fusion" --calls 10 --samples 30 ;;
      settled) TRTLLM_FUSION_SETTLING_CALLS=3000 timeout 90 "$PROBES/trtllm-fusion" --calls 10 \
        --samples 30 ;;
      uncleared) TRTLLM_FUSION_CLEAR=0 TRTLLM_FUSION_SETTLING_CALLS=3000 timeout 90 \
        "$PROBES/trtllm-fusion" --calls 10 --samples 30 ;;
    esac >"$OUT/$variant-$round.txt"
    echo "exit $?"
  done
done
