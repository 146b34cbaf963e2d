#!/usr/bin/env bash
# Checks, on one GPU, what the memory check and the bounded readers do where a GPU is present:
# the CUDA device reports its free memory (GPU JUnit test), a sweep that fits runs, and an
# endless tuning table is refused in one line with exit code 2 before any rank starts.
# Usage: bash bench/hostile-inputs-gpu.sh
#   BUNDLE  the portable bundle (default app/target/gpucomm-bundle.tar.xz:
#           ./mvnw -q -pl app -am package -Pbundle -DskipTests)
#   GPURUN  folder with tests/*.jar and junit.jar (see bench/README.md; default .gpurun)
#   WORK    scratch folder (default $TMPDIR or /tmp); OUT receives the output (default bench/out)
# Takes about two minutes.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
R="$WORK/hostile"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv >"$R/host.txt" 2>&1
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/hostile.tar.gz" -C "$WORK" hostile
}
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
# expect: 2 tests successful (free memory shrinks by an allocation; the rest of the class too)
step junit-free-memory 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED \
  -jar "$B/junit.jar" execute -cp "$CP" --include-tag gpu --fail-if-no-tests \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --details=summary --disable-banner
grep -E "tests (successful|failed|skipped|aborted)" "$R/junit-free-memory.log"
# expect: exit 0, the device check passes for a sweep that fits
step fits 120 "$G" bench --device cuda --world 1 --sizes 1073741824 --algorithms auto --name fits \
  --out "$R/fits"
# expect: exit 2 and one line naming --tuning-ref and "not a regular file (a character device)"
step endless-table 60 "$G" bench --device cuda --world 1 --heuristic measured --tuning-ref /dev/zero
cat "$R/endless-table.log"
