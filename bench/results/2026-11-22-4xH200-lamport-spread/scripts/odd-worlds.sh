#!/usr/bin/env bash
# The generic kernels (world size known only at run time: 3 here) and a single rank, on the final
# tree: selftest at 3 and 1 ranks, and a 3-rank sweep. (Was odd-worlds/COMMAND.txt, typed by hand
# with the bundle unpacked to /tmp/g and its gpucomm on PATH; the same commands.)
# Usage: bash bench/results/2026-11-22-4xH200-lamport-spread/scripts/odd-worlds.sh
#   Runs from any folder; needs 3 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   WORK    scratch folder for the unpacked bundle (default $TMPDIR or /tmp)
#   OUT     folder that receives the output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
mkdir -p "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g" && source "$ROOT/bench/libs.sh"
G="$WORK/g/gpucomm/bin/gpucomm"
cd "$OUT"
for w in 3 1; do "$G" selftest --device cuda --world $w > selftest-tp$w.log; done
"$G" bench --device cuda --world 3 --tokens 32,256,1024 --hidden 8192 --algorithms nccl,oneshot,twoshot --name tp3 --out tp3
