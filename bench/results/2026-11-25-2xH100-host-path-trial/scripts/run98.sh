#!/usr/bin/env bash
# The final tree on a 2-GPU host: GPU JUnit tests, selftest with the host path forced, the quick
# start's job on the GPUs, a pod given fewer GPUs than ranks, then bench/run-h200.sh at TP2.
# Usage: bash bench/results/2026-11-25-2xH100-host-path-trial/scripts/run98.sh   (optional: RUN)
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
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
REPO="$ROOT"
RUN="${RUN:-98}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
source "$LIBS" >"$R/libs.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
cat "$R/host.txt"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 60 "$G" selftest --device cuda --world 2
tail -1 "$R/selftest-host-tp2.log"
# The README's quick start, as a newcomer runs it (on the GPUs when there are any).
step quick-start 120 "$G" run -f "$REPO/examples/allreduce-sweep.yaml" --out "$R/quick-start"
tail -15 "$R/quick-start.log"
sed 's/device: cpu/device: cuda/' "$ROOT/bench/results/2026-11-22-nccl-in-place/scripts/shared-gpu.yaml" >"$R/shared-gpu.yaml"
CUDA_VISIBLE_DEVICES=0 GPUCOMM_JOB=shared-gpu GPUCOMM_POD_INDEX=0 GPUCOMM_RANKS_PER_POD=2 GPUCOMM_WORLD_SIZE=2 \
  GPUCOMM_RENDEZVOUS=127.0.0.1:29871 GPUCOMM_JOB_FILE="$R/shared-gpu.yaml" GPUCOMM_TERMINATION_LOG="$R/shared-gpu.termination" \
  step shared-gpu 60 "$G" launch
cat "$R/shared-gpu.termination"; echo
GPUCOMM_WORLDS=2 step run-h200 400 bash "$REPO/bench/run-h200.sh" "$BUNDLE" "$R/run-h200"
cat "$R/run-h200/steps.txt"
for d in tp2-trtllm tp2-nccl-in-place tp2-vllm; do echo "== $d"; grep -A12 '## Latency' "$R/run-h200/$d/report.md" | grep 'MB |'; done
grep torch_ "$R/run-h200/torch-tp2.log" | tail -30
