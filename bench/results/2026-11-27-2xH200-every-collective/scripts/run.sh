#!/usr/bin/env bash
# Every collective of the "every collective, every size" work on an H200 pair, in the order the
# figures of README.md were taken: the fabric matrix with the gather study's run-v7.sh and the
# large all-reduce's quick sweep; the fusion study's run-v4.sh (selftest, plain and fused sweeps,
# PyTorch's fused compositions); the plain TP2 sizes; all-gather and reduce-scatter at 64 and
# 256 MiB per rank with the copy-engine probe beside them; all-reduce at 64-256 MiB; PyTorch's
# plain all-reduce; the fused sweep with NCCL's unfused baseline and PyTorch's fused compositions
# again. Every gpucomm point is validated on both ranks against a float64 reference.
# Usage: bash bench/results/2026-11-27-2xH200-every-collective/scripts/run.sh
#   Needs 2 NVIDIA H200s (it does nothing elsewhere), about 10 minutes, and the environment of
#   ../../2026-11-26-large-allreduce/scripts/run.sh (BUNDLE, GPURUN, WORK, OUT).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
S="$ROOT/bench/results"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
WORK="${WORK:-${TMPDIR:-/tmp}}"
export OUT WORK
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200 host"; exit 0; }
ONLY_H200=1 bash "$S/2026-11-26-fabric-sweep/scripts/run-h200-or-selftest.sh"
mkdir -p "$OUT/fusion"
SKIP_JUNIT=1 OUT="$OUT/fusion" timeout 330 bash "$S/2026-11-26-allreduce-fusion/scripts/run-v4.sh" >"$OUT/fusion/run.log" 2>&1
export GPUCOMM_JAVA_OPTS=-Xmx16g
G="$WORK/g/gpucomm/bin/gpucomm"
bench() { # name, limit, arguments...
  local name="$1" limit="$2"
  shift 2
  timeout "$limit" "$G" bench --device cuda --world 2 --dtype bf16 "$@" --name "$name" \
    --out "$OUT/$name" >"$OUT/$name.log" 2>&1
  echo "$name: exit $?"
  grep '^| (' "$OUT/$name/report.md"
}
bench small-tp2-h200 100 --tokens 32,64,128,256,1024,2048,4096 --hidden 8192 \
  --algorithms auto,nccl,oneshot,twoshot
for c in allgather reducescatter; do
  bench "$c-large-h200" 90 --collective "$c" --sizes 64M,256M --algorithms nccl,oneshot,copyengine -n 30 -w 10
done
for mib in 64 256; do
  timeout 60 python3 "$ROOT/bench/probes/copy-engine.py" --mib "$mib" >"$OUT/ce-$mib.txt" 2>&1
  tail -6 "$OUT/ce-$mib.txt"
done
bench large-mid-h200 120 -b 64M -e 256M -f 2 -n 30 -w 10 --algorithms nccl,oneshot
timeout 150 python3 "$ROOT/bench/compare-torch.py" --world 2 --port 29703 --tokens 32,64,128,256,1024,2048,4096 \
  --hidden 8192 --pattern allreduce --iterations 100 >"$OUT/torch-plain.txt" 2>&1
tail -22 "$OUT/torch-plain.txt"
bench fused-h200 90 --tokens 32,64,128,256 --hidden 8192 --pattern allreduceResidualRmsNorm \
  --algorithms nccl,oneshot,twoshot -n 200 -w 20
timeout 120 python3 "$ROOT/bench/compare-torch.py" --world 2 --port 29704 --tokens 32,64,128,256 \
  --hidden 8192 --pattern allreduceResidualRmsNorm --iterations 200 >"$OUT/torch-fused-2.txt" 2>&1
tail -13 "$OUT/torch-fused-2.txt"
