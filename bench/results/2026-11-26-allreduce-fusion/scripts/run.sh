#!/usr/bin/env bash
# All-reduce + residual + RMSNorm (+ FP8) at 0.5-4 MiB (tokens 32-256 x hidden 8192, bf16) on 2 GPUs
# (and 4 where there are 4): the GPU tests (the fused one-shot, Lamport and two-shot kernels and the
# NCCL + add/RMSNorm baseline among them), selftest (every fused kernel x pattern x dtype across
# GPUs), gpucomm's plain all-reduce and the fused pattern in CUDA graphs, a tune of each to compare
# the one-/two-shot crossover, and PyTorch's compositions at the same sizes. About 5 minutes on
# 2 GPUs.
# Usage: bash bench/results/2026-11-26-allreduce-fusion/scripts/run.sh   (optional: RUN, TUNE_ONLY=1)
#   Runs from any folder; needs 2 NVIDIA GPUs and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz:
#           ./mvnw -q -pl app -am package -Pbundle -DskipTests)
#   GPURUN  folder with what the repository does not hold (default .gpurun at the repository
#           root): tests/*.jar (the runtime modules' test classes and their test libraries, see
#           bench/README.md) and junit.jar (the JUnit console launcher)
#   WORK    scratch folder (default $TMPDIR or /tmp); OUT receives the raw output (default bench/out)
#   PYTHON  a Python with PyTorch for compare-torch.py (default python3; skipped without torch)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
PYTHON="${PYTHON:-python3}"
RUN="${RUN:-fusion}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
source "$ROOT/bench/libs.sh" >"$R/libs.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
GPUS=$(nvidia-smi -L | wc -l)
# nvidia-smi lists every GPU of the host; count only those this process may use
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && GPUS=$(tr , "\n" <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
head -3 "$R/host.txt"
# TUNE_ONLY=1 runs the two tunes only (the crossover with the kernels of the day)
if [ -z "${TUNE_ONLY:-}" ]; then
# the jlinked runtime has no jar file system, so JUnit scans the test classes as a folder
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.CudaFusedAllReduceGpuTest \
  --include-tag gpu --fail-if-no-tests --details=tree --disable-banner
grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
grep -A3 "CudaFusedAllReduceGpuTest" "$R/junit.log" | head -12
step selftest-tp2 150 "$G" selftest --device cuda --world 2
grep -E "allreduceResidual|selftest passed" "$R/selftest-tp2.log" | tail -8
if [ "$GPUS" -ge 4 ]; then
  step selftest-tp4 150 "$G" selftest --device cuda --world 4
  tail -1 "$R/selftest-tp4.log"
fi

T=(--tokens 32,64,128,256 --hidden 8192 --dtype bf16 --algorithms nccl,oneshot,twoshot,auto)
WORLDS=(2)
[ "$GPUS" -ge 4 ] && WORLDS+=(4)
for W in "${WORLDS[@]}"; do
  step "plain-tp$W" 120 "$G" bench --device cuda --world "$W" "${T[@]}" --pattern allreduce \
    --name "plain-tp$W" --out "$R/plain-tp$W"
  grep -A8 '## Latency' "$R/plain-tp$W/report.md" | grep 'iB |'
  step "fused-tp$W" 120 "$G" bench --device cuda --world "$W" "${T[@]}" \
    --pattern allreduceResidualRmsNorm --name "fused-tp$W" --out "$R/fused-tp$W"
  tail -2 "$R/fused-tp$W.log"
  step "fused-fp16acc-tp$W" 120 "$G" bench --device cuda --world "$W" "${T[@]}" \
    --pattern allreduceResidualRmsNorm --no-fp32-accumulate --name "fused-fp16acc-tp$W" \
    --out "$R/fused-fp16acc-tp$W"
  tail -2 "$R/fused-fp16acc-tp$W.log"
  step "fused-fp8-tp$W" 120 "$G" bench --device cuda --world "$W" "${T[@]}" \
    --pattern allreduceResidualRmsNormFp8 --fp8-scale 0.05 --name "fused-fp8-tp$W" \
    --out "$R/fused-fp8-tp$W"
  tail -2 "$R/fused-fp8-tp$W.log"
done
fi  # TUNE_ONLY

# The one-/two-shot crossover with and without the pattern (the heuristics assume it is the same).
tune_job() {
  cat <<YAML
apiVersion: gpucomm.dev/v1alpha1
kind: CommJob
metadata:
  name: $1
spec:
  worldSize: 2
  ranksPerPod: 2
  workload:
    kind: tune
    tune:
      dtype: bf16
      hiddenSize: 8192
      tokens: [4, 8, 16, 32, 64, 128, 256]
      algorithms: [oneshot, twoshot]
      warmupIterations: 5
      iterations: 40
$2
  timeoutSeconds: 300
YAML
}
tune_job tune-plain-tp2 "" >"$R/tune-plain.yaml"
tune_job tune-fused-tp2 "      pattern: allreduceResidualRmsNorm" >"$R/tune-fused.yaml"
for P in plain fused; do
  step "tune-$P-tp2" 120 "$G" tune -f "$R/tune-$P.yaml" --device cuda --out "$R/tune-$P-tp2"
  grep -A10 '## Latency' "$R/tune-$P-tp2/report.md" | grep 'iB |'
  cat "$R/tune-$P-tp2/tuning.json"
done

if [ -n "${TUNE_ONLY:-}" ]; then
  :  # the tunes only
elif "$PYTHON" -c "import torch" 2>/dev/null; then
  for W in "${WORLDS[@]}"; do
    for P in allreduce allreduceResidualRmsNorm; do
      step "torch-$P-tp$W" 180 "$PYTHON" "$ROOT/bench/compare-torch.py" --world "$W" \
        --tokens 32,64,128,256 --hidden 8192 --pattern "$P" --json "$R/torch-$P-tp$W.json"
      tail -14 "$R/torch-$P-tp$W.log"
    done
  done
else
  echo "compare-torch: skipped, $PYTHON has no torch" | tee -a "$R/steps.txt"
fi
echo "raw output: $OUT/r$RUN.tar.gz"
