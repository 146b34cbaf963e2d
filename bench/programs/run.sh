#!/usr/bin/env bash
# Runs the host-IR program benchmarks on this host's GPUs and writes each report (report.json,
# report.md, host-ir.txt) under $OUT/<job>/ (default bench/results/programs/, which git ignores).
# Needs 4 GPUs for the tp4 jobs and the CLI built from the tree (./gpucomm at the repository root
# runs it); pass job names to run a subset, e.g.
#   bench/programs/run.sh row-parallel-linear-tp2-s2
#   OUT=/some/dir bench/programs/run.sh
set -euo pipefail
if [ -n "${OUT:-}" ]; then OUT="$(mkdir -p "$OUT" && cd "$OUT" && pwd)"; fi
cd "$(dirname "$0")/../.."
OUT="${OUT:-bench/results/programs}"
jobs=("$@")
if [ "${#jobs[@]}" -eq 0 ]; then
  for file in bench/programs/*.yaml; do jobs+=("$(basename "$file" .yaml)"); done
fi
for job in "${jobs[@]}"; do
  echo "== $job"
  ./gpucomm run -f "bench/programs/$job.yaml" --dump-ir --out "$OUT/$job"
done
