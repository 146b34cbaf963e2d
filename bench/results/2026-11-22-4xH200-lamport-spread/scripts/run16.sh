#!/usr/bin/env bash
# 4 x H200: rowParallelLinear with serializeMatmuls and no SM split (the matmuls one after another
# on every SM), NCCL and IPC, 2 and 4 chunks, at TP2 and TP4; the no-split baselines beside them.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r16
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r16.tar.gz" -C /tmp r16
}
cd "$R"
jobs=()
for w in 2 4; do for c in 2 4; do jobs+=(row-parallel-linear-tp$w-s$c-nccl-serial-all row-parallel-linear-tp$w-s$c-ipc-serial-all row-parallel-linear-tp$w-s$c); done; done
for job in "${jobs[@]}"; do
  step "$job" 60 "$G" run -f "$B/programs/$job.yaml" --out "$R/programs/$job"
done
cat "$R/steps.txt"
for job in "${jobs[@]}"; do echo "== $job: $(grep -E '^\| (unpipelined|pipelined) ' "$R/$job.log" | awk -F'|' '{printf "%s=%s ", $2, $3}')"; done
