#!/usr/bin/env bash
# 4 × H200, programs with serializeMatmuls (the matmul lane is now an option): rowParallelLinear
# at 4 GPUs with serialized matmuls, at 2 GPUs without, each key job twice.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r5
mkdir -p "$R/programs" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r5.tar.gz" -C /tmp r5
}
cd "$R"
for round in 1 2; do
  for job in row-parallel-linear-tp4-s4-nccl-sm48-serial row-parallel-linear-tp4-s2-nccl-sm32-serial row-parallel-linear-tp2-s4-nccl-sm48 row-parallel-linear-tp4-s4 row-parallel-linear-tp2-s4; do
    step "$job-$round" 60 "$G" run -f "$B/programs/$job.yaml" --dump-ir --out "$R/programs/$job-$round"
  done
done
for job in row-parallel-linear-tp4-s4-nccl-sm32-serial row-parallel-linear-tp4-s4-ipc-sm48-serial row-parallel-linear-tp4-s2-nccl-sm48-serial row-parallel-linear-tp2-s4-nccl-sm48-serial row-parallel-linear-tp2-s2-nccl-sm48-serial row-parallel-linear-tp4-s2 row-parallel-linear-tp2-s2; do
  step "$job" 60 "$G" run -f "$B/programs/$job.yaml" --dump-ir --out "$R/programs/$job"
  [ $SECONDS -gt 240 ] && break
done
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
for f in "$R"/programs/*/report.md; do echo "== $f"; grep -E "^\| (pipelined|unpipelined)|hid|SM partition" "$f"; done
