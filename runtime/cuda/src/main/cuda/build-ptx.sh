#!/usr/bin/env bash
# Compiles the CUDA sources in this folder to PTX for sm_90 (Hopper; newer GPUs JIT it) and
# records, next to each PTX file, the SHA-256 of its source (and of the headers of this folder it
# includes) and how it was compiled.
#
#   build-ptx.sh OUTPUT_DIR
#
# allreduce.cu becomes allreduce.ptx (any world size, known at run time) and allreduce-w2/-w4/-w8
# (world size fixed at compile time: loops and registers sized for it); gather.cu (all-gather and
# reduce-scatter) becomes gather.ptx; fusion.cu (all-reduce + residual + RMSNorm) becomes fusion.ptx
# and fusion-w2/-w4/-w8 in the same way.
#
# The runtime jar carries the committed copies in src/main/resources/ptx; to refresh them after
# editing a .cu file run:  runtime/cuda/src/main/cuda/build-ptx.sh runtime/cuda/src/main/resources/ptx
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build-ptx.sh OUTPUT_DIR}"
nvcc="${NVCC:-nvcc}"
command -v "$nvcc" >/dev/null || nvcc=/usr/local/bin/nvcc
flags=(-ptx -arch=sm_90 -O3)
mkdir -p "$out"
release="$("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*')"

compile() { # source, output name, extra flags...
  local source="$1" name="$2"
  shift 2
  "$nvcc" "${flags[@]}" "$@" -o "$out/$name.ptx" "$source"
  {
    echo "# What $name.ptx was built from; PtxFreshnessTest compares this with the sources."
    echo "source $(basename "$source") $(sha256sum "$source" | cut -d' ' -f1)"
    local header
    for header in $(sed -n 's/^#include "\(.*\)"$/\1/p' "$source"); do
      echo "include $header $(sha256sum "$here/$header" | cut -d' ' -f1)"
    done
    echo "compiler nvcc $release"
    echo "flags ${flags[*]} $*"
  } >"$out/$name.ptx.sources"
}

# The nine compilations are independent: run as many at once as there are cores (the build of a
# clean checkout waits on them), and fail if any one fails.
jobs_at_once="$(nproc 2>/dev/null || echo 1)"
pids=()
spawn() {
  while (($(jobs -rp | wc -l) >= jobs_at_once)); do
    wait -n || true # a failure is caught below, by its own pid
  done
  compile "$@" &
  pids+=("$!")
}

spawn "$here/fusion.cu" fusion -DFUSION_WORLD=0
for world in 2 4 8; do
  spawn "$here/fusion.cu" "fusion-w$world" "-DFUSION_WORLD=$world"
done
spawn "$here/allreduce.cu" allreduce -DGPUCOMM_WORLD=0
for world in 2 4 8; do
  spawn "$here/allreduce.cu" "allreduce-w$world" "-DGPUCOMM_WORLD=$world"
done
spawn "$here/gather.cu" gather
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
exit "$failed"
