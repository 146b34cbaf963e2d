#!/usr/bin/env bash
# 4 × H200, first pass: GPU tests, selftest and diagnostics with programmatic dependent launch,
# all-reduce sweeps with and without it, Lamport grid sizes at 0.5-1 MiB, host-IR programs.
# Usage: bash bench/results/2026-11-22-4xH200-pdl-overlap/scripts/run1.sh
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
R="$WORK/r1"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r1.tar.gz" -C "$WORK" r1
}
cd "$R"
step junit 100 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$WORK/g/gpucomm/lib/*" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
step selftest-tp4 40 "$G" selftest --device cuda --world 4
step diag-tp4 60 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R" --check
GPUCOMM_PDL=off step bench-tp4-nopdl 40 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-nopdl --out "$R/tp4-nopdl"
step bench-tp4-trtllm 40 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm --out "$R/tp4-trtllm"
step bench-tp2-trtllm 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp2-trtllm --out "$R/tp2-trtllm"
GPUCOMM_PDL=off step bench-tp2-nopdl 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms oneshot,twoshot --heuristic trtllm --name tp2-nopdl --out "$R/tp2-nopdl"
for b in 66 100; do
  GPUCOMM_LAMPORT_BLOCKS=$b step tp4-lamport-b$b 25 "$G" bench --device cuda --world 4 --tokens 32,64 --hidden 8192 --algorithms oneshot,twoshot --name tp4-lamport-b$b --out "$R/tp4-lamport-b$b"
done
for job in column-parallel-linear-tp4 column-parallel-linear-tp2 row-parallel-linear-tp4-s4 row-parallel-linear-tp4-s4-ipc; do
  step "$job" 90 "$G" run -f "$HERE/programs/$job.yaml" --dump-ir --out "$R/$job"
  [ $SECONDS -gt 420 ] && break
done
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
grep -h "tests successful\|tests failed" "$R/junit.log"
for f in "$R"/*/report.md; do echo "== $f"; sed -n 1,40p "$f" | grep -v "^$" | head -30; done
