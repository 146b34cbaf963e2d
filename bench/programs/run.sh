#!/usr/bin/env bash
# Runs the host-IR program benchmarks on this host's GPUs and writes each report (report.json,
# report.md, host-ir.txt) under bench/results/programs/<job>/. Needs 4 GPUs for the tp4 jobs;
# pass job names to run a subset, e.g. bench/programs/run.sh row-parallel-linear-tp2-s2
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs=("$@")
if [ "${#jobs[@]}" -eq 0 ]; then
  for file in bench/programs/*.yaml; do jobs+=("$(basename "$file" .yaml)"); done
fi
for job in "${jobs[@]}"; do
  echo "== $job"
  ./gpucomm run -f "bench/programs/$job.yaml" --dump-ir --out "bench/results/programs/$job"
done
