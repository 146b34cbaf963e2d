#!/usr/bin/env bash
# 4 × H200, final pass: GPU tests, selftests, diagnostics; pipeline depths of the large one-shot
# (TP2) and two-shot (TP4) calls; the all-reduce sweeps with the fastest depth; the host-IR
# programs with SM partitions (communication kernels at the highest launch priority).
# Usage: bash bench/results/2026-11-22-4xH200-pdl-overlap/scripts/run3.sh
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
R="$WORK/r3"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
L=(--tokens 1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r3.tar.gz" -C "$WORK" r3
}
cd "$R"
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 100 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest --details=tree
step selftest-tp4 40 "$G" selftest --device cuda --world 4
step selftest-tp2 40 "$G" selftest --device cuda --world 2
step diag-tp4 60 bash "$ROOT/bench/cuda-diagnostics.sh" "$G" 4 "$R" --check
mkdir -p depth
for c in 8 16 32; do GPUCOMM_ONESHOT_CHUNKS=$c step depth-tp2-oneshot-$c 30 "$G" bench --device cuda --world 2 "${L[@]}" --algorithms oneshot --name depth-tp2-oneshot-$c --out "$R/depth/tp2-oneshot-$c"; done
for c in 1 2 3 4; do GPUCOMM_TWOSHOT_CHUNKS=$c step depth-tp4-twoshot-$c 30 "$G" bench --device cuda --world 4 "${L[@]}" --algorithms twoshot --name depth-tp4-twoshot-$c --out "$R/depth/tp4-twoshot-$c"; done
python3 "$HERE/pick.py" GPUCOMM_ONESHOT_CHUNKS oneshot depth/tp2-oneshot-8 8 depth/tp2-oneshot-16 16 depth/tp2-oneshot-32 32 >depth/tp2.sh 2>>depth/picked.txt
python3 "$HERE/pick.py" GPUCOMM_TWOSHOT_CHUNKS twoshot depth/tp4-twoshot-1 1 depth/tp4-twoshot-2 2 depth/tp4-twoshot-3 3 depth/tp4-twoshot-4 4 >depth/tp4.sh 2>>depth/picked.txt
cat depth/tp2.sh depth/tp4.sh >>depth/picked.txt
(
  source depth/tp4.sh
  step bench-tp4-trtllm 60 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm --out "$R/tp4-trtllm"
  step bench-tp4-vllm 30 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic vllm --name tp4-vllm --out "$R/tp4-vllm"
  step tune-tp4 60 "$G" tune -f "$HERE/tune-tp4.yaml" --out "$R/tune-tp4"
  step bench-tp4-measured 30 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp4/tuning.json" --name tp4-measured --out "$R/tp4-measured"
)
(
  source depth/tp2.sh
  step bench-tp2-trtllm 50 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp2-trtllm --out "$R/tp2-trtllm"
  step bench-tp2-vllm 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic vllm --name tp2-vllm --out "$R/tp2-vllm"
  step tune-tp2 50 "$G" tune -f "$HERE/tune-tp2.yaml" --out "$R/tune-tp2"
  step bench-tp2-measured 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp2/tuning.json" --name tp2-measured --out "$R/tp2-measured"
)
jobs=()
for w in 4 2; do for s in 4 2; do
  jobs+=(row-parallel-linear-tp$w-s$s row-parallel-linear-tp$w-s$s-nccl-sm48 row-parallel-linear-tp$w-s$s-ipc-sm48)
done; done
jobs+=(row-parallel-linear-tp4-s4-nccl-sm64 row-parallel-linear-tp4-s4-ipc-sm64 row-parallel-linear-tp4-s4-ipc-sm32 row-parallel-linear-tp4-s4-nccl-sm32)
jobs+=(column-parallel-linear-tp4 column-parallel-linear-tp2 column-parallel-linear-permute-tp4 column-parallel-linear-permute-tp2)
for job in "${jobs[@]}"; do
  step "$job" 60 "$G" run -f "$HERE/programs/$job.yaml" --dump-ir --out "$R/programs/$job"
  [ $SECONDS -gt 500 ] && break
done
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt" depth/picked.txt
grep -h "tests successful\|tests failed" "$R/junit.log"
for f in "$R"/programs/*/report.md; do echo "== $f"; grep -E "^\| (pipelined|unpipelined)|hid" "$f"; done
