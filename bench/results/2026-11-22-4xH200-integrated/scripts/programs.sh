#!/usr/bin/env bash
# Host-IR programs on 2 and 4 H200s: each job unpipelined vs pipelined, results under $OUT.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/programs
mkdir -p "$R" /tmp/g; [ -x /tmp/g/gpucomm/bin/gpucomm ] || tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
for job in row-parallel-linear-tp2-s2 row-parallel-linear-tp2-s4 row-parallel-linear-tp4-s2 row-parallel-linear-tp4-s4 column-parallel-linear-tp2 column-parallel-linear-tp4 column-parallel-linear-permute-tp2 column-parallel-linear-permute-tp4; do
  start=$SECONDS
  timeout 90 "$G" run -f "$B/programs/$job.yaml" --dump-ir --out "$R/$job" >"$R/$job.log" 2>&1
  echo "$job: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/programs.tar.gz" -C /tmp programs
  [ $SECONDS -gt 250 ] && break
done
cat "$R/steps.txt"
for f in "$R"/*/report.md; do echo "== $f"; head -30 "$f"; done
