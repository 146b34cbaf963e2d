#!/usr/bin/env bash
# Two more runs of the 2-chunk jobs with serialized matmuls on every SM (NCCL), right after
# scripts/run16.sh on the same machine. (Was serial-all/repeats/COMMAND.txt, typed by hand with the
# bundle unpacked to /tmp/g and its gpucomm on PATH; the same commands.)
# Usage: bash bench/results/2026-11-22-4xH200-lamport-spread/scripts/serial-all-repeats.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
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
for n in 2 3; do for job in row-parallel-linear-tp2-s2-nccl-serial-all row-parallel-linear-tp4-s2-nccl-serial-all; do
  "$G" run -f "$HERE/programs/$job.yaml" --out "programs/$job-$n" > "$job-$n.log"
done; done
