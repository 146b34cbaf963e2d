#!/usr/bin/env bash
# 4 x H200: GPU tests of the host-IR programs (local step in place, traced runs), then the
# programs with the timeline from a traced run that reuses its events.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r13
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r13.tar.gz" -C /tmp r13
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls /tmp/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 100 /tmp/g/gpucomm/jre/bin/java --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
for job in row-parallel-linear-tp2-s4-nccl-sm48 row-parallel-linear-tp4-s4-nccl-sm48-serial row-parallel-linear-tp2-s2 column-parallel-linear-tp4 column-parallel-linear-tp2; do
  step "$job" 60 "$G" run -f "$B/programs/$job.yaml" --out "$R/programs/$job"
done
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
for job in row-parallel-linear-tp2-s4-nccl-sm48 row-parallel-linear-tp4-s4-nccl-sm48-serial row-parallel-linear-tp2-s2 column-parallel-linear-tp4 column-parallel-linear-tp2; do echo "== $job"; grep -E "^\| (unpipelined|pipelined|compute|communication)" "$R/$job.log"; sed -n '/^| stream/,$p' "$R/$job.log" | head -14; done
