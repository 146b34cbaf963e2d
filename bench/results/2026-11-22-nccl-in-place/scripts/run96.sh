#!/usr/bin/env bash
# All-reduce in place on W GPUs (W=4 default; W=2 on a 2-GPU host): selftest (with its in-place cases), bench
# --in-place and out of place beside PyTorch's NCCL in the same run, and a pod given fewer GPUs than ranks.
# Usage: bash bench/results/2026-11-22-nccl-in-place/scripts/run96.sh   (optional: RUN, W)
#   Runs from any folder; needs NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
REPO="$ROOT"
RUN="${RUN:-96}"; W="${W:-4}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
source "$LIBS" >"$R/libs.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
cd "$R"
step selftest-tp$W 120 "$G" selftest --device cuda --world $W
grep -E "in place|selftest passed" "$R/selftest-tp$W.log"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step bench-tp$W-nccl-in-place 120 "$G" bench --device cuda --world $W "${T[@]}" --algorithms nccl --in-place \
  --name tp$W-nccl-in-place --out "$R/tp$W-nccl-in-place"
step bench-tp$W-nccl 120 "$G" bench --device cuda --world $W "${T[@]}" --algorithms nccl \
  --name tp$W-nccl --out "$R/tp$W-nccl"
step torch-tp$W 200 python3 "$REPO/bench/compare-torch.py" --world $W --port 2965$W --json "$R/torch-tp$W.json"
sed 's/device: cpu/device: cuda/' "$HERE/shared-gpu.yaml" >"$R/shared-gpu.yaml"
CUDA_VISIBLE_DEVICES=0 GPUCOMM_JOB=shared-gpu GPUCOMM_POD_INDEX=0 GPUCOMM_RANKS_PER_POD=2 GPUCOMM_WORLD_SIZE=2 \
  GPUCOMM_RENDEZVOUS=127.0.0.1:29871 GPUCOMM_JOB_FILE="$R/shared-gpu.yaml" GPUCOMM_TERMINATION_LOG="$R/shared-gpu.termination" \
  step shared-gpu 60 "$G" launch
echo; cat "$R/shared-gpu.termination"; echo
for d in tp$W-nccl-in-place tp$W-nccl; do echo "== $d"; grep -A12 '## Latency' $d/report.md | grep 'MB |'; done
grep torch_nccl "$R/torch-tp$W.log"
