#!/usr/bin/env bash
# Ranks that would take different paths from their own settings or their JVM's draws:
# - two pods of one GPU each, started by hand with `gpucomm launch`, one of them given
#   GPUCOMM_NCCL=off: every rank must refuse at once, saying how many ranks can use NCCL, instead
#   of waiting in NCCL's setup (or for an id never published) until the rendezvous timeout; a
#   control runs both pods alike;
# - the row-parallel host-IR program on a pod of two ranks, over peer memory (`backend: ipc`) with
#   NCCL off, three times: its runs are lined up by a one-element all-reduce, which every rank
#   must pick alike (the one-shot or the two-shot, once taken from a set whose order each JVM
#   draws at start).
# Usage: bash bench/results/2026-11-29-rank-agreement/scripts/run.sh   (optional: RUN, DEVICE)
#   Needs 2 NVIDIA GPUs and the portable bundle (BUNDLE, default app/target/gpucomm-bundle.tar.xz,
#   built by bench/results/2026-11-26-module-split/scripts/prepare.sh); WORK and OUT as there.
#   DEVICE=cpu runs the same launches on the CPU backend (no NCCL there: a dry run of the script).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-1}"
DEVICE="${DEVICE:-cuda}"
R="$WORK/rank-agreement-$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; } >"$R/host.txt" 2>&1
head -3 "$R/host.txt"
# the module-split study's two pods, with a rendezvous timeout long enough to tell a refusal
# from a wait (60 s) and the device asked for
sed "s/^  device: cuda/  device: $DEVICE/; s/^  timeoutSeconds: 300/  timeoutSeconds: 60/" \
  "$ROOT/bench/results/2026-11-26-module-split/scripts/two-pods.yaml" >"$R/two-pods.yaml"
port=29571
# two_pods NAME [ENV=VALUE ...]: the settings after NAME go to pod 1 only
two_pods() {
  local name="$1" start=$SECONDS
  shift
  port=$((port + 1))
  mkdir -p "$R/$name/report"
  common=(GPUCOMM_JOB_FILE="$R/two-pods.yaml" GPUCOMM_WORLD_SIZE=2 GPUCOMM_RANKS_PER_POD=1
    GPUCOMM_RENDEZVOUS="127.0.0.1:$port" GPUCOMM_JOB=two-pods)
  env "${common[@]}" GPUCOMM_POD_INDEX=0 CUDA_VISIBLE_DEVICES=0 GPUCOMM_REPORT_DIR="$R/$name/report" \
    timeout 120 "$G" launch >"$R/$name/pod-0.log" 2>&1 &
  local pod0=$!
  env "${common[@]}" GPUCOMM_POD_INDEX=1 CUDA_VISIBLE_DEVICES=1 "$@" \
    timeout 120 "$G" launch >"$R/$name/pod-1.log" 2>&1
  local exit1=$?
  wait $pod0
  local exit0=$?
  echo "$name: pod 0 exit $exit0, pod 1 exit $exit1, after $((SECONDS - start)) s" | tee -a "$R/steps.txt"
  grep -h "failed\|NCCL is usable" "$R/$name"/pod-*.log | sort -u | head -4
}
two_pods alike
two_pods nccl-off-on-pod-1 GPUCOMM_NCCL=off
sed 's/^      name: rowParallelLinear/      name: rowParallelLinear\n      backend: ipc/' \
  "$ROOT/examples/row-parallel-linear.yaml" >"$R/row-parallel-ipc.yaml"
for i in 1 2 3; do
  start=$SECONDS
  GPUCOMM_NCCL=off timeout 180 "$G" run -f "$R/row-parallel-ipc.yaml" \
    --device "$DEVICE" --out "$R/program-nccl-off-$i" >"$R/program-nccl-off-$i.log" 2>&1
  echo "program-nccl-off-$i: exit $? after $((SECONDS - start)) s" | tee -a "$R/steps.txt"
done
grep -h "gpucomm run:" "$R"/program-nccl-off-*.log | sort -u
grep -h "^| \|transport\|ipc" "$R/program-nccl-off-1/report.md" 2>/dev/null | head -8
tar -czf "$OUT/rank-agreement-$RUN.tar.gz" -C "$WORK" "rank-agreement-$RUN"
