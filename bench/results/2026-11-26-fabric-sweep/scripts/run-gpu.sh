#!/usr/bin/env bash
# The fabric sweep's GPU-pair matrix on every GPU of one host (2 to 8), and a short all-reduce
# sweep whose report names every rank's GPU (UUID, PCI bus id) and the slowest rank per size.
# Usage: bash bench/results/2026-11-26-fabric-sweep/scripts/run-gpu.sh   (optional: RUN)
#   Runs from any folder in under 2 minutes; needs 2 or more NVIDIA GPUs and:
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz:
#           ./mvnw -q -pl app -am package -Pbundle -DskipTests)
#   GPURUN  optional folder holding tests/*.jar and junit.jar (see bench/README.md): when present,
#           the GPU tests of CudaDeviceGpuTest run too (GPU UUID and PCI bus id)
#   WORK    scratch folder (default $TMPDIR or /tmp); OUT receives the raw output (default bench/out)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-fabric}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,uuid --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
GPUS=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | wc -l)
# nvidia-smi lists every GPU of the host; count only those this process may use
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && GPUS=$(tr , "\n" <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
head -3 "$R/host.txt"
# the intra-node matrix: every ordered GPU pair one way, every pair both ways, small-copy latency,
# and each GPU's local copy, 64 MiB per copy as nvbandwidth's default
sed "s/WORLD/$GPUS/g" "$HERE/fabric-intra-node.yaml" >"$R/fabric-intra-node.yaml"
step fabric-intra-node 60 "$G" run -f "$R/fabric-intra-node.yaml" --out "$R/fabric"
grep -A12 "Degraded\|### One-way" "$R/fabric/report.md" | head -40
# per-rank truth on a collective sweep: every rank's GPU and the slowest rank per size
step bench-ranks 60 "$G" bench --device cuda --world "$GPUS" --tokens 32,4096 --hidden 8192 \
  --algorithms nccl,oneshot --name ranks --out "$R/ranks"
grep -A$((GPUS + 3)) "## Ranks" "$R/ranks/report.md"
grep -A6 "## Slowest rank" "$R/ranks/report.md"
if [ -f "$B/junit.jar" ]; then
  rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
  CP="$WORK/test-classes:$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
  step junit-device 60 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" \
    execute -cp "$CP" --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest \
    --include-tag gpu --details=tree --disable-banner
  grep -E "namesItsGpu|tests (successful|failed)" "$R/junit-device.log"
fi
cat "$R/steps.txt"
