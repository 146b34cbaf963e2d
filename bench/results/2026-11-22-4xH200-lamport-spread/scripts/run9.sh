#!/usr/bin/env bash
# 4 x H200: the flag-free Lamport kernels at large sizes (their buffers sized to 64 MiB through
# GPUCOMM_LAMPORT_MAX_BYTES / GPUCOMM_LAMPORT2_MAX_BYTES) against the default flag kernels.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r9
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
L=(--tokens 256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r9.tar.gz" -C /tmp r9
}
cd "$R"
step tp4-flag 40 "$G" bench --device cuda --world 4 "${L[@]}" --algorithms twoshot --name tp4-flag --out "$R/tp4-flag"
GPUCOMM_LAMPORT2_MAX_BYTES=67108864 step tp4-lamport2 40 "$G" bench --device cuda --world 4 "${L[@]}" --algorithms twoshot --name tp4-lamport2 --out "$R/tp4-lamport2"
step tp2-flag 40 "$G" bench --device cuda --world 2 "${L[@]}" --algorithms oneshot,twoshot --name tp2-flag --out "$R/tp2-flag"
GPUCOMM_LAMPORT_MAX_BYTES=67108864 GPUCOMM_LAMPORT2_MAX_BYTES=67108864 step tp2-lamport 40 "$G" bench --device cuda --world 2 "${L[@]}" --algorithms oneshot,twoshot --name tp2-lamport --out "$R/tp2-lamport"
cat "$R/steps.txt"
for d in tp4-flag tp4-lamport2 tp2-flag tp2-lamport; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| ("; done
