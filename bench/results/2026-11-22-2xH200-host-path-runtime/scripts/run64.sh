#!/usr/bin/env bash
# 2 x H200: the reviewed tree (host-path copies started and joined around the kernel launch; one
# entry-point macro, PTX unchanged): GPU tests, selftests (defaults; host path forced), diagnostics
# checks, the 64 MiB comparison and the timeline.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r64
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r64.tar.gz" -C /tmp r64
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls /tmp/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 /tmp/g/gpucomm/jre/bin/java --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
step selftest-tp2 60 "$G" selftest --device cuda --world 2
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 60 "$G" selftest --device cuda --world 2
mkdir -p diag timeline
step diag 150 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check --bench --samples 100 --runners nccl,kernel:oneshot_ws,kernel:oneshot_wsh,oneshot --tokens 2048,4096 --json "$R/diag/bench.json"
step timeline 60 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/timeline" --timeline
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -h "selftest" "$R/selftest-tp2.log" "$R/selftest-host-tp2.log" | tail -2
grep -E "check:|diagnostics:" "$R/diag/tp2.rank0.log"
grep -E "^ *(2048|4096) +[0-9]+ " "$R/diag/tp2.rank0.log"
grep -A12 "oneshot_wsh, 4096" "$R/timeline/tp2.rank0.log"
