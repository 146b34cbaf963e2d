#!/usr/bin/env bash
# 2 x H200: oneshot_wst (the pushing team helps reduce the last chunk) against oneshot_ws: GPU
# tests of the communicator, diagnostics checks and bench, and the pipeline-depth sweep.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r42
mkdir -p "$R/diag" "$R/chunks" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r42.tar.gz" -C /tmp r42
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls /tmp/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 /tmp/g/gpucomm/jre/bin/java --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
step diag 150 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check --bench --samples 100 --json "$R/diag/bench.json"
step chunks 150 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/chunks" --tune-chunks --json "$R/chunks/chunks.json"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -E "check:|diagnostics:" "$R/diag/tp2.rank0.log" | tail -4
grep -E " (8388608|16777216|33554432|67108864) .*(oneshot_ws|oneshot_wst|oneshot )" "$R/diag/tp2.rank0.log" | grep -v "/"
grep -E "oneshot_wst?/" "$R/chunks/tp2.rank0.log"
