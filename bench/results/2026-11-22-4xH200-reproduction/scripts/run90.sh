#!/usr/bin/env bash
# 2 x H200: why PyTorch's NCCL beats ours at 16 MiB from graphs: our bench on PyTorch's own
# libnccl.so.2 (2.28.9 against the system's 2.28.3), and PyTorch with graph registration off.
# Usage: bash bench/results/2026-11-22-4xH200-reproduction/scripts/run90.sh
#   Runs from any folder; needs 2 NVIDIA GPUs connected by NVLink and the environment below.
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
R="$WORK/r90"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r90.tar.gz" -C "$WORK" r90
}
cd "$R"
TORCH_NCCL="$(python3 -c 'import nvidia.nccl as n, os; print(os.path.join(list(n.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)"
echo "PyTorch's NCCL: $TORCH_NCCL" | tee "$R/torch-nccl.txt"
for rep in 1 2; do
  step "ours-system-$rep" 60 "$G" bench --device cuda --world 2 --tokens 512,1024,2048 --hidden 8192 --algorithms nccl --name "ours-system-$rep" --out "$R/ours-system-$rep"
  NCCL_LIBRARY="$TORCH_NCCL" step "ours-torchlib-$rep" 60 "$G" bench --device cuda --world 2 --tokens 512,1024,2048 --hidden 8192 --algorithms nccl --name "ours-torchlib-$rep" --out "$R/ours-torchlib-$rep"
done
step torch 60 python3 "$REPO/bench/compare-torch.py" --world 2 --tokens 512,1024,2048 --json "$R/torch.json"
NCCL_GRAPH_REGISTER=0 step torch-noreg 60 python3 "$REPO/bench/compare-torch.py" --world 2 --tokens 512,1024,2048 --json "$R/torch-noreg.json"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=REG,INIT NCCL_LIBRARY="$TORCH_NCCL" step ours-torchlib-debug 60 "$G" bench --device cuda --world 2 --tokens 1024 --hidden 8192 --algorithms nccl --iterations 20 --warmup 2 --name d --out "$R/d"
for d in ours-*/; do echo "$d $(grep -A4 '## Latency' $d/report.md | grep 'MB |' | awk -F'|' '{print $3,$4}' | tr '\n' ' ')"; done
grep torch_nccl torch.log torch-noreg.log
grep -i "version" ours-torchlib-debug.log | head -2
