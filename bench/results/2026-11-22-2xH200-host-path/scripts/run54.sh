#!/usr/bin/env bash
# 2 x H200: the host-path prototype with its staged chunks handed on by events (one process) and by
# stream-written words (as two processes must), 64 and 32 MiB.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r54
mkdir -p "$R"
step() {
  local name="$1"
  shift
  timeout 100 "$@" >"$R/$name.txt" 2>&1
  echo "$name: exit $? ($SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r54.tar.gz" -C /tmp r54
}
step events-64mib "$B/probes/hybrid-oneshot-ws" --mib 64 --samples 30 --host
step words-64mib "$B/probes/hybrid-oneshot-ws" --mib 64 --samples 30 --host-words
step words-32mib "$B/probes/hybrid-oneshot-ws" --mib 32 --samples 30 --host-words
cat "$R/steps.txt"
grep -h "share=0.0[0136] copy-chunks=[02] sm-chunks=16 " "$R/events-64mib.txt" "$R/words-64mib.txt" "$R/words-32mib.txt"
