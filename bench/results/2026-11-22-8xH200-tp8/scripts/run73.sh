#!/usr/bin/env bash
# 8 x H200: the first run of the IPC kernels on eight ranks. The host's NVLink and PCIe ceilings at
# eight GPUs (probes); diagnostics checks of every kernel, bench of every runner; pipeline-depth
# and grid sweeps; the two-shot's host path forced on (two shares); selftests (defaults; host path
# and flag kernels forced from 16 bytes); the README sweeps (trtllm, vllm, tune, measured);
# PyTorch's NCCL and symmetric-memory all-reduce on the same sizes.
# Usage: bash bench/results/2026-11-22-8xH200-tp8/scripts/run73.sh
#   Runs from any folder; needs 8 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   PROBES  the bench/probes binaries (default $GPURUN/probes), built with
#           nvcc -O3 -arch=sm_90 -cudart static -o $PROBES/NAME bench/probes/NAME.cu
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
PROBES="${PROBES:-$B/probes}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r73"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,pcie.link.gen.current,pcie.link.width.current --format=csv; nvidia-smi topo -m; lscpu | grep -E "Model name|Socket|NUMA"; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx8g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r73.tar.gz" -C "$WORK" r73
}
cd "$R"
D="bash $ROOT/bench/cuda-diagnostics.sh $G"
step nvlink-all-to-all 60 "$PROBES/nvlink-all-to-all" --mib 64
step pcie-all-to-all 90 "$PROBES/pcie-all-to-all" --mib 64
mkdir -p diag chunks grids hp-s0.04 hp-s0.08 repeat
step diag 240 $D 8 "$R/diag" --check --bench --samples 100 --json "$R/diag/bench.json"
step selftest-tp8 120 "$G" selftest --device cuda --world 8
GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp8 120 "$G" selftest --device cuda --world 8
step chunks 150 $D 8 "$R/chunks" --tune-chunks
for share in 0.04 0.08; do
  GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_SHARE=$share \
    step "hp-s$share" 60 $D 8 "$R/hp-s$share" --bench --samples 100 --runners nccl,kernel:twoshot,kernel:twoshot_ws,kernel:twoshot_wsh --tokens 2048,4096
done
step bench-tp8-trtllm 150 "$G" bench --device cuda --world 8 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp8-trtllm --out "$R/tp8-trtllm"
step bench-tp8-vllm 90 "$G" bench --device cuda --world 8 "${T[@]}" --algorithms auto --heuristic vllm --name tp8-vllm --out "$R/tp8-vllm"
step tune-tp8 150 "$G" tune -f "$HERE/tune-tp8.yaml" --out "$R/tune-tp8"
step bench-tp8-measured 90 "$G" bench --device cuda --world 8 "${T[@]}" --algorithms auto,nccl --heuristic measured --tuning-ref "$R/tune-tp8/tuning.json" --name tp8-measured --out "$R/tp8-measured"
step torch-tp8 180 python3 "$ROOT/bench/compare-torch.py" --world 8 --tokens 32,64,128,256,512,1024,2048,4096 --json "$R/torch-tp8.json"
step grids 150 $D 8 "$R/grids" --tune
cat "$R/steps.txt"
grep -E "communicator:|check:|diagnostics:" "$R/diag/tp8.rank0.log" | head -14
grep -E "^ *(32|512|2048|4096) +[0-9]+ " "$R/diag/tp8.rank0.log" | head -60
tail -25 "$R/nvlink-all-to-all.log"; tail -25 "$R/pcie-all-to-all.log"
grep -h "selftest" "$R"/selftest-*.log | tail -4
for d in tp8-trtllm tp8-measured tune-tp8; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| (" | tail -3; done
for s in 0.04 0.08; do echo "== host path $s"; grep -E "^ *(2048|4096) +[0-9]+ " "$R/hp-s$s/tp8.rank0.log"; done
tail -20 "$R/torch-tp8.log"
