#!/usr/bin/env bash
# The fused two-shot taking its own rows (fused_lamport2_own, the default where a call's slices are
# whole rows and most blocks have one row) against the spread reduce of fused_lamport2
# (GPUCOMM_FUSED_OWN_ROWS=off): run-v5.sh for that setting at tokens 32-256 x 8192 bf16 (the fused
# GPU tests, selftest, plain / own / spread / own again in CUDA graphs, every point validated on
# every rank, PyTorch's fused compositions in the same run). Under 370 s on 2 GPUs.
# Usage: bash bench/results/2026-11-26-allreduce-fusion/scripts/run-v8.sh   (environment of run-v3.sh)
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORLD="${WORLD:-2}"
TOGGLE=GPUCOMM_FUSED_OWN_ROWS ON_NAME=own OFF_NAME=spread RUN="${RUN:-fusion-v8-tp$WORLD}" \
  TOKENS="${TOKENS:-32,64,96,128,192,256}" bash "$HERE/run-v5.sh"
