#!/usr/bin/env bash
# Fourth run, first part, on one 4-GPU host: two pods of two GPUs, flat NCCL against hierarchical
# all-reduce, 1 MiB to 1 GiB, with NCCL forced onto sockets (NCCL_P2P_DISABLE=1
# NCCL_SHM_DISABLE=1, every NCCL transfer over TCP as between nodes) and with NVLink allowed;
# then the hierarchical GPU JUnit test (two pods of one GPU, in one process) and the fabric
# sweep's intra-node matrix on all four GPUs.
# Usage: OUT=... bash bench/results/2026-11-26-four-gpus/scripts/run4a.sh   (BUNDLE, GPURUN as run1.sh)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
S="$ROOT/bench/results"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.total --format=csv; nvidia-smi topo -m; } >"$OUT/host.txt" 2>&1
head -4 "$OUT/host.txt"
W=/tmp/run4 && mkdir -p "$W/g" && tar -xJf "$BUNDLE" -C "$W/g"
G="$W/g/gpucomm/bin/gpucomm"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() { # name, limit, command...: output in OUT/name.log, one line in OUT/steps.txt
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$OUT/steps.txt"
}
show() { # latency table, decisions and fabric section of one report
  grep -A12 '## Latency' "$OUT/$1/report.md" | grep '^| '
  grep -A10 '## Heuristic decisions' "$OUT/$1/report.md" | grep '^| ' | cut -c1-200
  sed -n '/## Fabric/,/^## [A-Z]/p' "$OUT/$1/report.md" | head -14
  tail -3 "$OUT/$1.log"
}
H="$S/2026-11-26-hierarchical-cuda/scripts"
sed -e 's/worldSize: 2/worldSize: 4/; s/ranksPerPod: 1/ranksPerPod: 2/; s/name: two-pods-hierarchical/name: two-pods-of-two/; s/timeoutSeconds: 300/timeoutSeconds: 250/' \
  "$H/two-pods-hierarchical.yaml" >"$W/two-pods-of-two.yaml"
NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 step 2x2-sockets 260 "$G" run -f "$W/two-pods-of-two.yaml" \
  --out "$OUT/2x2-sockets"
show 2x2-sockets
step 2x2-nvlink 130 "$G" run -f "$W/two-pods-of-two.yaml" --out "$OUT/2x2-nvlink"
show 2x2-nvlink
sed "s/WORLD/4/g" "$S/2026-11-26-fabric-sweep/scripts/fabric-intra-node.yaml" >"$W/fabric.yaml"
step fabric-4 50 "$G" run -f "$W/fabric.yaml" --out "$OUT/fabric-4"
grep -A12 "Degraded\|### One-way" "$OUT/fabric-4/report.md" | head -30
if [ -f "$B/junit.jar" ]; then
  rm -rf "$W/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$W/test-classes"
  CP="$W/test-classes:$(ls "$B"/tests/*.jar "$W"/g/gpucomm/lib/*.jar | tr '\n' ':')"
  CUDA_VISIBLE_DEVICES=0,1 step junit-hierarchical 100 "$W/g/gpucomm/jre/bin/java" \
    --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" --select-class \
    dev.gpucomm.runtime.collective.cuda.HierarchicalAllReduceGpuTest --include-tag gpu \
    --details=tree --disable-banner
  grep -E "tests (successful|failed)|✘|hierarchical-rank|    at " "$OUT/junit-hierarchical.log" | head -60
fi
cat "$OUT/steps.txt"
tar -czf "/tmp/run4a.tar.gz" -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/run4a.tar.gz "$OUT/"
