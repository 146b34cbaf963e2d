#!/usr/bin/env bash
# Second run on one 4-GPU host: the GPU JUnit classes one by one (lane A, GPUs 0,1), hierarchical
# all-reduce across two pods of one GPU (lane B, GPUs 2,3), then on all four GPUs: two pods of two
# GPUs flat against hierarchical with NVLink allowed and with NCCL forced onto sockets, the
# README's TP4 all-reduce sizes, and all-reduce beyond 64 MiB at TP4.
# Usage: OUT=... bash bench/results/2026-11-26-four-gpus/scripts/run2.sh   (BUNDLE, GPURUN as run1.sh)
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
W=/tmp/run2 && mkdir -p "$W/g" && tar -xJf "$BUNDLE" -C "$W/g"
G="$W/g/gpucomm/bin/gpucomm"
rm -rf "$W/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$W/test-classes"
CP="$W/test-classes:$(ls "$B"/tests/*.jar "$W"/g/gpucomm/lib/*.jar | tr '\n' ':')"
export G CP W B OUT S
step() { # name, limit, command...: output in OUT/name.log, one line in OUT/steps.txt
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s" | tee -a "$OUT/steps.txt"
}
export -f step
laneA() {
  for class in collective.cuda.CudaAllReduceInPassesGpuTest collective.cuda.HierarchicalAllReduceGpuTest \
    collective.cuda.CudaFusedAllReduceGpuTest hostir.programs.ProgramsOnCudaTest; do
    step "junit-${class##*.}" 90 "$W/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED \
      -jar "$B/junit.jar" execute -cp "$CP" --select-class "dev.gpucomm.runtime.$class" \
      --include-tag gpu --details=tree --disable-banner
    grep -E "tests (successful|failed)|✘" "$OUT/junit-${class##*.}.log" | head -8
  done
}
laneB() {
  WORK=/tmp/run2-hier OUT="$OUT/hier-2x1" bash "$S/2026-11-26-hierarchical-cuda/scripts/run.sh"
}
export -f laneA laneB
CUDA_VISIBLE_DEVICES=0,1 bash -c laneA >"$OUT/laneA.log" 2>&1 &
CUDA_VISIBLE_DEVICES=2,3 bash -c laneB >"$OUT/laneB.log" 2>&1 &
wait
cat "$OUT/laneA.log"; tail -30 "$OUT/laneB.log"
# all four GPUs: two pods of two GPUs, flat NCCL against hierarchical, NVLink then sockets
H="$S/2026-11-26-hierarchical-cuda/scripts"
sed -e 's/worldSize: 2/worldSize: 4/; s/ranksPerPod: 1/ranksPerPod: 2/; s/name: two-pods-hierarchical/name: two-pods-of-two/' \
  "$H/two-pods-hierarchical.yaml" >"$W/two-pods-of-two.yaml"
step 2x2-nvlink 150 "$G" run -f "$W/two-pods-of-two.yaml" --out "$OUT/2x2-nvlink"
NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 step 2x2-sockets 200 "$G" run -f "$W/two-pods-of-two.yaml" \
  --out "$OUT/2x2-sockets"
for r in 2x2-nvlink 2x2-sockets; do
  grep -A12 '## Latency' "$OUT/$r/report.md" | grep '^| '; sed -n '/## Fabric/,/^## [A-Z]/p' "$OUT/$r/report.md" | head -14
done
# the README's TP4 sizes (0.5, 2, 8, 16, 64 MiB) and all-reduce beyond 64 MiB at TP4
step tp4-readme 120 "$G" bench --device cuda --world 4 --tokens 32,128,512,1024,4096 --hidden 8192 \
  --algorithms auto,nccl,oneshot,twoshot --name tp4-readme --out "$OUT/tp4-readme"
grep -A12 '## Latency' "$OUT/tp4-readme/report.md" | grep 'MB |'
step large-tp4 200 "$G" bench --device cuda --world 4 --dtype bf16 -b 64M -e 1G -f 2 -n 20 -w 5 \
  --algorithms auto,nccl,oneshot,twoshot --name large-tp4 --out "$OUT/large-tp4"
grep -A12 '## nccl-tests view' "$OUT/large-tp4/report.md" | grep '^| [0-9]'
cat "$OUT/steps.txt"
# one archive: the device returns only a few files
tar -czf "$OUT/../run2.tar.gz" -C "$OUT" . && mv "$OUT/../run2.tar.gz" "$OUT/" && find "$OUT" -mindepth 1 -not -name run2.tar.gz -delete
