#!/usr/bin/env bash
# Runs the CUDA backend's diagnostics on this host, one process per GPU (rank r uses GPU r; rank 0
# hosts the rendezvous store), and writes each rank's output to LOGDIR/tpWORLD.rankR.log.
#
#   bench/cuda-diagnostics.sh GPUCOMM WORLD LOGDIR [--check] [--bench] [--samples N] [--tune] [--json FILE]
#
# GPUCOMM is the bundle's launcher (gpucomm/bin/gpucomm). Exit status 1 when any rank fails.
set -uo pipefail
gpucomm="$1"
world="$2"
logs="$3"
shift 3
port=$((29400 + world * 10 + RANDOM % 10))
pids=()
for ((rank = 0; rank < world; rank++)); do
  "$gpucomm" diag --rank "$rank" --world "$world" --store "127.0.0.1:$port" "$@" \
    >"$logs/tp$world.rank$rank.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit $status
