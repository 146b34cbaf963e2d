#!/usr/bin/env bash
# 4 x H200: the final tree (81b67b1: one call path for the host-path kernels; probes sharing
# all-to-all.h). Both all-to-all probes, TP4 checks, selftests and the 64 MiB comparison, TP2
# checks, selftest and one-shot, GPU tests.
# Usage: bash bench/results/2026-11-22-4xH200-host-path-twoshot/scripts/run69.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   GPURUN  staging folder for what the repository does not hold (default .gpurun at the
#           repository root):
#           tests/ (gpucomm-tests.jar, assertj-core-3.27.3.jar, byte-buddy-1.17.6.jar), junit.jar
#   PROBES  the bench/probes binaries (default $GPURUN/probes), built with
#           nvcc -O3 -arch=sm_90 -cudart static -o $PROBES/NAME bench/probes/NAME.cu
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
PROBES="${PROBES:-$B/probes}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r69"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r69.tar.gz" -C "$WORK" r69
}
cd "$R"
D="bash $ROOT/bench/cuda-diagnostics.sh $G"
chmod +x "$PROBES"/*
step probe-nvlink-all-to-all 90 "$PROBES/nvlink-all-to-all" --mib 64
step probe-pcie-all-to-all 90 "$PROBES/pcie-all-to-all" --mib 64
mkdir -p diag4 diag2 bench2
step diag4 150 $D 4 "$R/diag4" --check --bench --samples 100 --runners nccl,kernel:twoshot_ws,kernel:twoshot_wsh,twoshot --tokens 2048,4096 --json "$R/diag4/bench.json"
step selftest-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 60 "$G" selftest --device cuda --world 2
step diag2 90 $D 2 "$R/diag2" --check --bench --samples 100 --runners nccl,kernel:oneshot_ws,kernel:oneshot_wsh,oneshot --tokens 4096 --json "$R/diag2/bench.json"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
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
