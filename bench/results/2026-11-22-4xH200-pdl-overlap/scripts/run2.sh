#!/usr/bin/env bash
# 4 × H200, second pass: GPU tests, selftest, diagnostics, all-reduce sweeps (trtllm, vllm, and
# measured from a fresh tune), host-IR programs with SM partitions and stream counts.
# Usage: bash bench/results/2026-11-22-4xH200-pdl-overlap/scripts/run2.sh
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
R="$WORK/r2"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r2.tar.gz" -C "$WORK" r2
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 100 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
step selftest-tp4 40 "$G" selftest --device cuda --world 4
step selftest-tp2 40 "$G" selftest --device cuda --world 2
step diag-tp4 60 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R" --check
step bench-tp4-trtllm 60 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm --out "$R/tp4-trtllm"
step bench-tp4-vllm 30 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic vllm --name tp4-vllm --out "$R/tp4-vllm"
step tune-tp4 60 "$G" tune -f "$HERE/tune-tp4.yaml" --out "$R/tune-tp4"
step bench-tp4-measured 30 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp4/tuning.json" --name tp4-measured --out "$R/tp4-measured"
step bench-tp2-trtllm 50 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp2-trtllm --out "$R/tp2-trtllm"
step bench-tp2-vllm 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic vllm --name tp2-vllm --out "$R/tp2-vllm"
step tune-tp2 50 "$G" tune -f "$HERE/tune-tp2.yaml" --out "$R/tune-tp2"
step bench-tp2-measured 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp2/tuning.json" --name tp2-measured --out "$R/tp2-measured"
jobs=(row-parallel-linear-tp4-s4-ipc-sm32 row-parallel-linear-tp4-s4-nccl-sm32 column-parallel-linear-tp4 column-parallel-linear-tp4-streams4 column-parallel-linear-tp2
  row-parallel-linear-tp4-s4 row-parallel-linear-tp4-s2 row-parallel-linear-tp2-s4 row-parallel-linear-tp2-s2)
for w in 4 2; do for be in ipc nccl; do for sm in 16 32 48; do
  j=row-parallel-linear-tp$w-s4-$be-sm$sm; [[ " ${jobs[*]} " == *" $j "* ]] || jobs+=("$j")
done; done; done
for w in 4 2; do for be in ipc nccl; do jobs+=(row-parallel-linear-tp$w-s2-$be-sm32); done; done
jobs+=(column-parallel-linear-tp4-streams2 column-parallel-linear-permute-tp4 column-parallel-linear-permute-tp2)
for job in "${jobs[@]}"; do
  step "$job" 60 "$G" run -f "$HERE/programs/$job.yaml" --dump-ir --out "$R/$job"
  [ $SECONDS -gt 480 ] && break
done
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
grep -h "tests successful\|tests failed" "$R/junit.log"
for f in "$R"/*-parallel-*/report.md; do echo "== $f"; grep -E "^\| (pipelined|unpipelined|matmul|communication)|hid|pipelined run" "$f"; done
