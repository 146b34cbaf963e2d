#!/usr/bin/env bash
# Fifth run on one 4-GPU host (2 GPUs suffice for the first part): the spread fused kernels
# (2026-11-26-allreduce-fusion, scripts/run-v2.sh) on GPUs 0,1 while the pipelined copy-engine
# all-gather and reduce-scatter (2026-11-26-gather-scatter, scripts/run-v3.sh) run on GPUs 2,3,
# then the hierarchical GPU test (two pods of one GPU in one process), PyTorch's fused
# composition at TP2 and the fabric sweep's matrix of a GPU pair (with two GPUs, the lanes run one
# after the other); then with four GPUs both studies at TP4, PyTorch's at TP4, and what `auto` picks for two pods of
# two GPUs over NVLink and over sockets.
# Usage: OUT=... PART=a|b bash bench/results/2026-11-26-four-gpus/scripts/run5.sh   (BUNDLE, GPURUN as
#   run1.sh): part a is the two lanes, part b the TP4 steps (each fits one 10-minute call).
PART="${PART:-a}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
S="$ROOT/bench/results"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
export B BUNDLE GPURUN="$B"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.total --format=csv; } >"$OUT/host.txt" 2>&1
head -3 "$OUT/host.txt"
GPUS=$(nvidia-smi -L | grep -c '^GPU')
W=/tmp/run5 && mkdir -p "$W/g" && tar -xJf "$BUNDLE" -C "$W/g"
rm -rf "$W/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$W/test-classes"
CP="$W/test-classes:$(ls "$B"/tests/*.jar "$W"/g/gpucomm/lib/*.jar | tr '\n' ':')"
export GPUCOMM_JAVA_OPTS="-Xmx16g" W CP OUT S ROOT
step() { # name, limit, command...: output in OUT/name.log, one line in OUT/steps.txt
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s" | tee -a "$OUT/steps.txt"
}
export -f step
laneA() {
  WORK=/tmp/run5-fusion OUT="$OUT" WORLD=2 bash "$S/2026-11-26-allreduce-fusion/scripts/run-v2.sh"
  step junit-hierarchical 100 "$W/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED \
    -jar "$B/junit.jar" execute -cp "$CP" --select-class \
    dev.gpucomm.runtime.collective.cuda.HierarchicalAllReduceGpuTest --include-tag gpu \
    --fail-if-no-tests --details=tree --disable-banner
  grep -E "tests (successful|failed)|✘" "$OUT/junit-hierarchical.log" | head -8
  step torch-fused-tp2 70 python3 "$ROOT/bench/compare-torch.py" --world 2 --port 29702 \
    --tokens 32,64,128,256 --hidden 8192 --pattern allreduceResidualRmsNorm --iterations 100 \
    --json "$OUT/torch-fused-tp2.json"
  tail -8 "$OUT/torch-fused-tp2.log"
}
laneB() {
  WORK=/tmp/run5-gather OUT="$OUT" WORLD=2 bash "$S/2026-11-26-gather-scatter/scripts/run-v3.sh"
}
export -f laneA laneB
if [ "$PART" = b ]; then
  :
elif [ "$GPUS" -ge 4 ]; then
  CUDA_VISIBLE_DEVICES=0,1 bash -c laneA >"$OUT/laneA.log" 2>&1 &
  CUDA_VISIBLE_DEVICES=2,3 bash -c laneB >"$OUT/laneB.log" 2>&1 &
  wait
else
  CUDA_VISIBLE_DEVICES=0,1 bash -c laneA >"$OUT/laneA.log" 2>&1
  CUDA_VISIBLE_DEVICES=0,1 bash -c laneB >"$OUT/laneB.log" 2>&1
fi
if [ "$PART" = a ]; then
  cat "$OUT/laneA.log"; tail -60 "$OUT/laneB.log"
  # the fabric sweep's intra-node matrix on the first two GPUs (a GPU pair)
  sed "s/WORLD/2/g" "$S/2026-11-26-fabric-sweep/scripts/fabric-intra-node.yaml" >"$W/fabric.yaml"
  CUDA_VISIBLE_DEVICES=0,1 step fabric-pair 50 "$W/g/gpucomm/bin/gpucomm" run -f "$W/fabric.yaml" \
    --out "$OUT/fabric-pair"
  grep -A12 "Degraded\|### One-way" "$OUT/fabric-pair/report.md" | head -24
fi
if [ "$PART" = b ] && [ "$GPUS" -ge 4 ]; then
  SKIP_JUNIT=1 WORK=/tmp/run5-fusion4 WORLD=4 bash "$S/2026-11-26-allreduce-fusion/scripts/run-v2.sh" >"$OUT/fusion-tp4.log" 2>&1
  cat "$OUT/fusion-tp4.log"
  step torch-fused-tp4 50 python3 "$ROOT/bench/compare-torch.py" --world 4 --port 29704 \
    --tokens 32,64,128,256 --hidden 8192 --pattern allreduceResidualRmsNorm --iterations 50 \
    --json "$OUT/torch-fused-tp4.json"
  tail -8 "$OUT/torch-fused-tp4.log"
  SKIP_JUNIT=1 WORK=/tmp/run5-gather4 WORLD=4 bash "$S/2026-11-26-gather-scatter/scripts/run-v3.sh" >"$OUT/gather-tp4.log" 2>&1
  tail -60 "$OUT/gather-tp4.log"
  # two pods of two GPUs at 1 and 64 MiB: auto should take nccl where the pods reach each other
  # over NVLink and hierarchical where NCCL is on sockets
  sed -e 's/worldSize: 2/worldSize: 4/; s/ranksPerPod: 1/ranksPerPod: 2/; s/name: two-pods-hierarchical/name: two-pods-of-two/; s/sizes: .*/sizes: [1048576, 67108864]/' \
    "$S/2026-11-26-hierarchical-cuda/scripts/two-pods-hierarchical.yaml" >"$W/two-by-two.yaml"
  step 2x2-nvlink-auto 60 "$W/g/gpucomm/bin/gpucomm" run -f "$W/two-by-two.yaml" --out "$OUT/2x2-nvlink-auto"
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 step 2x2-sockets-auto 60 "$W/g/gpucomm/bin/gpucomm" run \
    -f "$W/two-by-two.yaml" --out "$OUT/2x2-sockets-auto"
  for r in 2x2-nvlink-auto 2x2-sockets-auto; do
    grep -A5 '## Latency' "$OUT/$r/report.md" | grep '^| '
    grep -A5 '## Heuristic decisions' "$OUT/$r/report.md" | grep '^| ' | cut -c1-260
  done
fi
cat "$OUT/steps.txt"
tar -czf /tmp/run5$PART.tar.gz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/run5$PART.tar.gz "$OUT/"
