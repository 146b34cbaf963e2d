#!/usr/bin/env bash
# 4 x H200: the two-shot with a pushed gather (twoshot_wsp: the reduce team stores each reduced
# chunk into the peers' gather areas; the gather team copies locally) against twoshot_ws (gather
# pulls) and the flag two-shot. GPU tests; diagnostics at TP4 (checks, bench, pipeline depths)
# and at TP2 (checks, bench).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r39
mkdir -p "$R/diag-tp4" "$R/chunks-tp4" "$R/diag-tp2" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r39.tar.gz" -C /tmp r39
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls /tmp/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 /tmp/g/gpucomm/jre/bin/java --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
GPUCOMM_LAMPORT_MAX_BYTES=4194304 GPUCOMM_LAMPORT2_MAX_BYTES=4194304 \
  step diag-tp4 150 bash "$B/cuda-diagnostics.sh" "$G" 4 "$R/diag-tp4" --check --bench --samples 100 --json "$R/diag-tp4/bench.json"
step chunks-tp4 200 bash "$B/cuda-diagnostics.sh" "$G" 4 "$R/chunks-tp4" --tune-chunks --json "$R/chunks-tp4/chunks.json"
step diag-tp2 150 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/diag-tp2" --check --bench --samples 100 --json "$R/diag-tp2/bench.json"
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -E "check:|diagnostics:" "$R/diag-tp4/tp4.rank0.log" "$R/diag-tp2/tp2.rank0.log" | tail -8
grep -E " (16777216|33554432|67108864) .*(twoshot|nccl)" "$R/diag-tp4/tp4.rank0.log" | grep -v "/" | tail -15
grep -E "twoshot_ws" "$R/chunks-tp4/tp4.rank0.log" | tail -12
grep -E " (33554432|67108864) .*(kernel:|nccl)" "$R/diag-tp2/tp2.rank0.log" | grep -v "/" | tail -14
