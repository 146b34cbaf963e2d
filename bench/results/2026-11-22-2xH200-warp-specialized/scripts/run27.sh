#!/usr/bin/env bash
# 2 x H200, the last tree: every GPU JUnit test, selftest at TP2, and rowParallelLinear (2 chunks)
# and columnParallelLinear at TP2 with the ranks lined up before each run.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r27
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
  tar -czf "$OUT/r27.tar.gz" -C /tmp r27
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls /tmp/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 /tmp/g/gpucomm/jre/bin/java --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
step selftest-tp2 40 "$G" selftest --device cuda --world 2
for job in row-parallel-linear-tp2-s2-nccl-serial-all column-parallel-linear-tp2; do
  step "$job" 60 "$G" run -f "$B/programs/$job.yaml" --out "$R/programs/$job"
done
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -h "selftest" "$R/selftest-tp2.log"
for job in row-parallel-linear-tp2-s2-nccl-serial-all column-parallel-linear-tp2; do echo "== $job: $(grep -E '^\| (unpipelined|pipelined|compute alone) ' "$R/$job.log" | awk -F'|' '{printf "%s=%s ", $2, $3}')"; done
