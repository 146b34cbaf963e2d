#!/usr/bin/env bash
# Tuning curves keyed by device model, on a host with one or two GPUs: `gpucomm tune` stamps its
# curve with the GPU's name, the measured heuristic follows that curve (its reasons name the model),
# and a table whose only curve another model measured is refused before any size is timed.
# Usage: bash bench/results/2026-11-29-device-keyed-tuning/scripts/run.sh
#   (optional: RUN, DEVICE, WORLD: 1 by default, 2 for the examples' own pod of two ranks;
#   PODS=2 with WORLD=2 for two pods of one rank)
#   Needs WORLD NVIDIA GPUs and the portable bundle (BUNDLE, default app/target/gpucomm-bundle.tar.xz,
#   built by bench/results/2026-11-26-module-split/scripts/prepare.sh); WORK and OUT as there.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-1}"
DEVICE="${DEVICE:-cuda}" # cpu for a dry run of the script on a host without a GPU
R="$WORK/device-keyed-$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; } >"$R/host.txt" 2>&1
head -3 "$R/host.txt"
WORLD="${WORLD:-1}"
PODS="${PODS:-1}" # 2 with WORLD=2: two pods of one rank, so rank 0's table crosses pods
layout() {
  if [ "$WORLD" != 2 ]; then
    sed 's/^  worldSize: 2/  worldSize: 1/; s/^  ranksPerPod: 2/  ranksPerPod: 1/' "$@"
  elif [ "$PODS" = 2 ]; then
    sed 's/^  ranksPerPod: 2/  ranksPerPod: 1/' "$@"
  else cat "$@"; fi
}
layout "$ROOT/examples/tune-allreduce.yaml" >"$R/tune.yaml"
layout "$ROOT/examples/measured-heuristic.yaml" | sed "s|tuningRef: tuning.json|tuningRef: $R/tuning.json|" >"$R/measured.yaml"
sed "s|$R/tuning.json|$R/other-model.json|" "$R/measured.yaml" >"$R/measured-other-model.yaml"
step() {
  local name="$1" start=$SECONDS
  shift
  timeout 300 "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s" | tee -a "$R/steps.txt"
}
step tune "$G" tune -f "$R/tune.yaml" --device "$DEVICE" --table "$R/tuning.json" --out "$R/tune-report"
grep -E '"schemaVersion"|"device"' "$R/tuning.json"
step measured "$G" run -f "$R/measured.yaml" --device "$DEVICE" --out "$R/measured-report"
grep -o '"chosenReason" : "[^"]*"' "$R/measured-report/report.json"
# the same table as if another model had measured it
python3 - "$R/tuning.json" "$R/other-model.json" <<'PY'
import json, sys
table = json.load(open(sys.argv[1]))
for curve in table["curves"]:
    curve["device"] = "NVIDIA H100 80GB HBM3"
json.dump(table, open(sys.argv[2], "w"), indent=2)
PY
step other-model "$G" run -f "$R/measured-other-model.yaml" --device "$DEVICE" --out "$R/other-report"
grep "gpucomm run:" "$R/other-model.log"
tar -czf "$OUT/device-keyed-$RUN.tar.gz" -C "$WORK" "device-keyed-$RUN"
