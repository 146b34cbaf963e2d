#!/usr/bin/env bash
# 4 x H200: the two-shot's host path (twoshot_wsh) and the one-shot's after its protocol change:
# GPU tests, selftests (defaults; host path forced on 4 and 2 ranks), diagnostics checks on 4 and 2
# ranks, the 64 MiB comparison at TP4 with share and chunk sweeps, TP2 one-shot regression, timeline.
# Usage: bash bench/results/2026-11-22-4xH200-host-path-twoshot/scripts/run66.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   GPURUN  staging folder for what the repository does not hold (default .gpurun at the
#           repository root):
#           tests/ (gpucomm-tests.jar, assertj-core-3.27.3.jar, byte-buddy-1.17.6.jar), junit.jar
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
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r66"
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
  tar -czf "$OUT/r66.tar.gz" -C "$WORK" r66
}
cd "$R"
D="bash $ROOT/bench/cuda-diagnostics.sh $G"
mkdir -p diag4 diag2 bench4 bench2 sweep timeline4
step diag4 120 $D 4 "$R/diag4" --check
step bench4 120 $D 4 "$R/bench4" --bench --samples 100 --runners nccl,kernel:twoshot_ws,kernel:twoshot_wsh,twoshot --tokens 2048,4096 --json "$R/bench4/bench.json"
for cfg in 0.03:2 0.045:2 0.08:2 0.10:2 0.06:1 0.06:4; do
  share=${cfg%:*} chunks=${cfg#*:}
  mkdir -p "sweep/s$share-c$chunks"
  GPUCOMM_HOST_PATH_SHARE=$share GPUCOMM_HOST_PATH_CHUNKS=$chunks \
    step "sweep-s$share-c$chunks" 90 $D 4 "$R/sweep/s$share-c$chunks" --bench --samples 100 --runners kernel:twoshot_ws,kernel:twoshot_wsh --tokens 4096
done
step selftest-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 90 "$G" selftest --device cuda --world 2
step diag2 90 $D 2 "$R/diag2" --check
step bench2 90 $D 2 "$R/bench2" --bench --samples 100 --runners nccl,kernel:oneshot_ws,kernel:oneshot_wsh,oneshot --tokens 4096 --json "$R/bench2/bench.json"
step timeline4 60 $D 4 "$R/timeline4" --timeline
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 150 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
cat "$R/steps.txt"
grep -E "host path|check:|diagnostics:" "$R/diag4/tp4.rank0.log" | tail -8
grep -E "host path|check:|diagnostics:" "$R/diag2/tp2.rank0.log" | tail -5
grep -E "^ *(2048|4096) +[0-9]+ " "$R/bench4/tp4.rank0.log"
for f in "$R"/sweep/*/tp4.rank0.log; do echo "$f"; grep -E "^ *4096 +[0-9]+ " "$f"; done
grep -E "^ *4096 +[0-9]+ " "$R/bench2/tp2.rank0.log"
grep -h "selftest" "$R"/selftest-*.log | tail -3
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
