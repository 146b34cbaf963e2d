#!/usr/bin/env bash
# 4 x H200: columnParallelLinear with the local step reading its chunk in place (no copy),
# twice at TP4 and TP2, with the timeline of one traced pipelined run.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r12
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r12.tar.gz" -C /tmp r12
}
cd "$R"
for job in column-parallel-linear-tp4 column-parallel-linear-tp2 column-parallel-linear-tp4 column-parallel-linear-tp2; do n=$((${n:-0} + 1))
  step "$job-$n" 60 "$G" run -f "$B/programs/$job.yaml" --out "$R/programs/$job-$n"
done
cat "$R/steps.txt"
for job in column-parallel-linear-tp4-1 column-parallel-linear-tp2-2 column-parallel-linear-tp4-3 column-parallel-linear-tp2-4; do echo "== $job"; grep -E "^\| (unpipelined|pipelined|compute|communication)" "$R/$job.log"; sed -n '/^Timeline/,$p' "$R/$job.log" | head -30; done
