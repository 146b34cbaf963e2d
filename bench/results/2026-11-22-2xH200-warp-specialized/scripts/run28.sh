#!/usr/bin/env bash
# 2 x H200, after the review (kernel variants looked up by name): the communicator's GPU tests and
# the CUDA diagnostics' checks (every kernel by name, bit-for-bit against the others).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r28
mkdir -p "$R/diag" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls /tmp/g/gpucomm/lib/*.jar | tr '\n' ':')"
timeout 120 /tmp/g/gpucomm/jre/bin/java --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree >"$R/junit.log" 2>&1
echo "junit: exit $?" >>"$R/steps.txt"
timeout 150 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/diag" --check >"$R/diag.log" 2>&1
echo "diag: exit $?" >>"$R/steps.txt"
tar -czf "$OUT/r28.tar.gz" -C /tmp r28
cat "$R/steps.txt"
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -E "check:|diagnostics:" "$R/diag/tp2.rank0.log"
