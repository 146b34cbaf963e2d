#!/usr/bin/env bash
# 4 x H200: twoshot_wsh pulling each host chunk as soon as every rank has reduced it (instead of
# all chunks at the end). Checks on 4 and 2 ranks, selftests with the host path forced, the 64 MiB
# comparison with repeats and a share sweep, GPU tests.
# Usage: bash bench/results/2026-11-22-4xH200-host-path-twoshot/scripts/run70.sh
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
R="$WORK/r70"
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
  tar -czf "$OUT/r70.tar.gz" -C "$WORK" r70
}
cd "$R"
D="bash $ROOT/bench/cuda-diagnostics.sh $G"
mkdir -p diag4 diag2 timeline
step diag4 150 $D 4 "$R/diag4" --check --bench --samples 100 --runners nccl,kernel:twoshot_ws,kernel:twoshot_wsh,twoshot --tokens 2048,4096 --json "$R/diag4/bench.json"
for i in 1 2; do
  mkdir -p "repeat-$i"
  step "repeat-$i" 60 $D 4 "$R/repeat-$i" --bench --samples 100 --runners nccl,kernel:twoshot_ws,twoshot --tokens 4096 --json "$R/repeat-$i/bench.json"
done
for cfg in 0.07:2 0.10:2 0.12:2 0.10:3; do
  share=${cfg%:*} chunks=${cfg#*:}
  mkdir -p "sweep/s$share-c$chunks"
  GPUCOMM_HOST_PATH_SHARE=$share GPUCOMM_HOST_PATH_CHUNKS=$chunks \
    step "sweep-s$share-c$chunks" 60 $D 4 "$R/sweep/s$share-c$chunks" --bench --samples 100 --runners kernel:twoshot_ws,kernel:twoshot_wsh --tokens 4096
done
step timeline 60 $D 4 "$R/timeline" --timeline
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_HOST_PATH_CHUNKS=3 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host3-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 60 "$G" selftest --device cuda --world 2
step diag2 90 $D 2 "$R/diag2" --check
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
cat "$R/steps.txt"
grep -E "check:|diagnostics:" "$R/diag4/tp4.rank0.log" | head -8
grep -E "check:|diagnostics:" "$R/diag2/tp2.rank0.log" | tail -2
grep -E "^ *(2048|4096) +[0-9]+ " "$R/diag4/tp4.rank0.log"
for i in 1 2; do echo "== repeat $i"; grep -E "^ *4096 +[0-9]+ " "$R/repeat-$i/tp4.rank0.log"; done
for f in "$R"/sweep/*/tp4.rank0.log; do echo "== $f"; grep -E "^ *4096 +[0-9]+ " "$f"; done
grep -h "selftest" "$R"/selftest-*.log | tail -3
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -A12 "twoshot_wsh, 4096" "$R/timeline/tp4.rank0.log"
