#!/usr/bin/env bash
# Compiles every CUDA source in this folder to PTX for sm_90 (Hopper; newer GPUs JIT it) and
# records, next to each PTX file, the SHA-256 of its source and the compiler that built it.
#
#   build-ptx.sh OUTPUT_DIR
#
# The runtime jar carries the committed copies in src/main/resources/ptx; to refresh them after
# editing a .cu file run:  runtime-image/src/main/cuda/build-ptx.sh runtime-image/src/main/resources/ptx
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build-ptx.sh OUTPUT_DIR}"
nvcc="${NVCC:-nvcc}"
command -v "$nvcc" >/dev/null || nvcc=/usr/local/bin/nvcc
flags=(-ptx -arch=sm_90 -O3)
mkdir -p "$out"
release="$("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*')"
for source in "$here"/*.cu; do
  name="$(basename "$source" .cu)"
  "$nvcc" "${flags[@]}" -o "$out/$name.ptx" "$source"
  {
    echo "# What $name.ptx was built from; PtxFreshnessTest compares this with the sources."
    echo "source $(basename "$source") $(sha256sum "$source" | cut -d' ' -f1)"
    echo "compiler nvcc $release"
    echo "flags ${flags[*]}"
  } > "$out/$name.ptx.sources"
done
