#!/usr/bin/env bash
# All-reduce beyond the peer buffer: oneshot and twoshot run calls larger than their registered
# buffers in passes. Sweeps bf16 all-reduce from 64 MiB to 2 GiB beside NCCL (CUDA graphs on,
# every point validated) on 2 GPUs, and on 4 when the host has them; repeats the TP2 sizes of
# 0.5 to 64 MiB to check that nothing at or below one buffer moved; runs the GPU tests of passes.
# Usage: bash bench/results/2026-11-26-large-allreduce/scripts/run.sh   (optional: RUN)
#   QUICK=1 runs only the 2-GPU sweep of 512 MiB to 2 GiB with nccl and oneshot (about 2 minutes).
#   Runs from any folder; needs 2 NVIDIA GPUs (4 for the WORLD=4 sweep) and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz:
#           ./mvnw -q -pl app -am package -Pbundle -DskipTests)
#   GPURUN  folder with what the repository does not hold (default .gpurun at the repository
#           root): tests/*.jar (the runtime modules' test classes and their test libraries, see
#           bench/README.md) and junit.jar (the JUnit console launcher)
#   WORK    scratch folder (default $TMPDIR or /tmp); OUT receives the raw output (default bench/out)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-large-allreduce}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total --format=csv; nvidia-smi topo -m; free -g; } >"$R/host.txt" 2>&1
source "$ROOT/bench/libs.sh" >"$R/libs.txt"
# the ranks hold host copies of a 2 GiB input and output for validation
export GPUCOMM_JAVA_OPTS="-Xmx16g"
GPUS=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
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
# the jlinked runtime has no jar file system, so JUnit scans the test classes as a folder
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
[ -n "${QUICK:-}" ] || step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$CP" --select-class dev.gpucomm.runtime.collective.cuda.CudaAllReduceInPassesGpuTest \
  --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --include-tag gpu --fail-if-no-tests --details=summary --disable-banner
[ -n "${QUICK:-}" ] || grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
# 64 MiB (one peer buffer) to 2 GiB in nccl-tests' flags: 64M 128M 256M 512M 1G 2G
L=(--dtype bf16 -b 64M -e 2G -f 2 -n 20 -w 5 --algorithms auto,nccl,oneshot,twoshot)
[ -n "${QUICK:-}" ] && L=(--dtype bf16 -b 512M -e 2G -f 2 -n 20 -w 5 --algorithms nccl,oneshot)
step large-tp2 300 "$G" bench --device cuda --world 2 "${L[@]}" --name large-tp2 --out "$R/large-tp2"
grep -A16 '## nccl-tests view' "$R/large-tp2/report.md" | grep '^| [0-9]'
T=(--tokens 32,64,128,256,1024,2048,4096 --hidden 8192)
[ -n "${QUICK:-}" ] || step small-tp2 180 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot \
  --name small-tp2 --out "$R/small-tp2"
[ -n "${QUICK:-}" ] || grep -A12 '## Latency' "$R/small-tp2/report.md" | grep 'MB |'
if [ "$GPUS" -ge 4 ] && [ -z "${QUICK:-}" ]; then
  step large-tp4 300 "$G" bench --device cuda --world 4 "${L[@]}" --name large-tp4 --out "$R/large-tp4"
  grep -A16 '## nccl-tests view' "$R/large-tp4/report.md" | grep '^| [0-9]'
fi
tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
for report in large-tp2 small-tp2 large-tp4; do
  cp "$R/$report/report.md" "$OUT/$report-report.md" 2>/dev/null
  cp "$R/$report/report.json" "$OUT/$report-report.json" 2>/dev/null
done
cp "$R/steps.txt" "$OUT/steps.txt"
