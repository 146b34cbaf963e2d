#!/usr/bin/env bash
# Fourth run, second part, on one 4-GPU host: the README's TP4 all-reduce row with the final code
# (a TP4 tune of bf16 x hidden 8192 from 32 tokens to 1 GiB, then the `measured` heuristic with
# that table beside NCCL at 0.5, 2, 8, 16 and 64 MiB and at 256 MiB and 1 GiB, where auto runs
# the IPC kernels in passes), and all-reduce from 64 MiB to 2 GiB at TP4, every algorithm,
# nccl-tests' sweep flags.
# Usage: OUT=... bash bench/results/2026-11-26-four-gpus/scripts/run4b.sh   (BUNDLE as run1.sh)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.total --format=csv; } >"$OUT/host.txt" 2>&1
head -3 "$OUT/host.txt"
W=/tmp/run4 && mkdir -p "$W/g" && [ -x "$W/g/gpucomm/bin/gpucomm" ] || tar -xJf "$BUNDLE" -C "$W/g"
G="$W/g/gpucomm/bin/gpucomm"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$OUT/steps.txt"
}
cat >"$W/tune-tp4.yaml" <<YAML
apiVersion: gpucomm.dev/v1alpha1
kind: CommJob
metadata:
  name: tune-tp4
spec:
  worldSize: 4
  ranksPerPod: 4
  device: cuda
  workload:
    kind: tune
    tune: {dtype: bf16, hiddenSize: 8192, tokens: [32, 64, 128, 256, 512, 1024, 2048, 4096, 16384, 65536],
           warmupIterations: 10, iterations: 50, tableName: h-nvlink-tp4}
  timeoutSeconds: 200
YAML
step tune-tp4 210 "$G" tune -f "$W/tune-tp4.yaml" --out "$OUT/tune-tp4"
tail -4 "$OUT/tune-tp4.log"
step tp4-measured 150 "$G" bench --device cuda --world 4 --tokens 32,128,512,1024,4096,16384,65536 \
  --hidden 8192 --algorithms auto,nccl --heuristic measured --tuning-ref "$OUT/tune-tp4/tuning.json" \
  --name tp4-measured --out "$OUT/tp4-measured"
grep -A12 '## Latency' "$OUT/tp4-measured/report.md" | grep '^| '
grep -A12 '## Heuristic decisions' "$OUT/tp4-measured/report.md" | grep '^| ' | cut -c1-160
step large-tp4 200 "$G" bench --device cuda --world 4 --dtype bf16 -b 64M -e 2G -f 2 -n 20 -w 5 \
  --algorithms nccl,oneshot,twoshot --name large-tp4 --out "$OUT/large-tp4"
grep -A12 '## nccl-tests view' "$OUT/large-tp4/report.md" | grep '^| [0-9]'
grep -A10 '## Latency' "$OUT/large-tp4/report.md" | grep '^| '
cat "$OUT/steps.txt"
tar -czf "/tmp/run4b.tar.gz" -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/run4b.tar.gz "$OUT/"
