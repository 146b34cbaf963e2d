#!/usr/bin/env bash
# 4 x H200: host-IR programs with the timeline of one traced pipelined run (timeline.json and the
# table in each log), to see where the pipelined forms lose time.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r11
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r11.tar.gz" -C /tmp r11
}
cd "$R"
for job in column-parallel-linear-tp4 column-parallel-linear-tp2 row-parallel-linear-tp2-s2 row-parallel-linear-tp2-s4-nccl-sm48 row-parallel-linear-tp4-s4-nccl-sm48-serial; do
  step "$job" 60 "$G" run -f "$B/programs/$job.yaml" --out "$R/programs/$job"
done
cat "$R/steps.txt"
for job in column-parallel-linear-tp4 column-parallel-linear-tp2 row-parallel-linear-tp2-s2; do echo "== $job"; grep -E "^\| (unpipelined|pipelined|compute|communication)" "$R/$job.log"; sed -n '/^Timeline/,$p' "$R/$job.log" | head -30; done
