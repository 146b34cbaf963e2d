#!/usr/bin/env bash
# 4 x H200: the final tree (81b67b1: one call path for the host-path kernels; probes sharing
# all-to-all.h). Both all-to-all probes, TP4 checks, selftests and the 64 MiB comparison, TP2
# checks, selftest and one-shot, GPU tests.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r69
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
  tar -czf "$OUT/r69.tar.gz" -C /tmp r69
}
cd "$R"
D="bash $B/cuda-diagnostics.sh $G"
chmod +x "$B"/probes/*
step probe-nvlink-all-to-all 90 "$B/probes/nvlink-all-to-all" --mib 64
step probe-pcie-all-to-all 90 "$B/probes/pcie-all-to-all" --mib 64
mkdir -p diag4 diag2 bench2
step diag4 150 $D 4 "$R/diag4" --check --bench --samples 100 --runners nccl,kernel:twoshot_ws,kernel:twoshot_wsh,twoshot --tokens 2048,4096 --json "$R/diag4/bench.json"
step selftest-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 60 "$G" selftest --device cuda --world 2
step diag2 90 $D 2 "$R/diag2" --check --bench --samples 100 --runners nccl,kernel:oneshot_ws,kernel:oneshot_wsh,oneshot --tokens 4096 --json "$R/diag2/bench.json"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls /tmp/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 /tmp/g/gpucomm/jre/bin/java --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
cat "$R/steps.txt"
grep -E "checked|MISMATCH" "$R/probe-nvlink-all-to-all.log" | head -8
grep -E "host gpus=0,1,2,3|share=0.(00|04)" "$R/probe-pcie-all-to-all.log"
grep -E "communicator:|check:|diagnostics:" "$R/diag4/tp4.rank0.log" | head -12
grep -E "check:|diagnostics:" "$R/diag2/tp2.rank0.log" | tail -3
grep -E "^ *(2048|4096) +[0-9]+ " "$R/diag4/tp4.rank0.log"
grep -E "^ *4096 +[0-9]+ " "$R/diag2/tp2.rank0.log"
grep -h "selftest" "$R"/selftest-*.log | tail -3
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
