#!/usr/bin/env bash
# 2 x H200: where the runtime host path's time goes (per-step CUDA-event timelines on each rank),
# with the staged words in host memory (default) or in device memory, and with the kernel not
# waiting for the host chunks; then the bench of the untimed-events head and the prototype.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r56
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
save() { tar -czf "$OUT/r56.tar.gz" -C /tmp r56; }
diag() { # name, env..., -- args
  local name="$1" start=$SECONDS
  shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  mkdir -p "$R/$name"
  timeout 120 env "${envs[@]}" GPUCOMM_HOST_PATH_MIN_BYTES=33554432 bash "$B/cuda-diagnostics.sh" "$G" 2 "$R/$name" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  save
}
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv >"$R/host.txt" 2>&1
diag tl-hostwords X=1 -- --timeline
diag tl-devicewords GPUCOMM_HOST_PATH_WORDS=device -- --timeline
diag tl-nowait GPUCOMM_HOST_PATH_KERNEL_WAITS=off -- --timeline
diag bench X=1 -- --bench --samples 30
timeout 100 "$B/probes/hybrid-oneshot-ws" --mib 64 --samples 30 --host-words >"$R/proto-words-64mib.txt" 2>&1
echo "proto: exit $? (total $SECONDS s)" >>"$R/steps.txt"
save
cat "$R/steps.txt"
for n in tl-hostwords tl-devicewords tl-nowait; do echo "=== $n"; cat "$R/$n/tp2.rank0.log" | grep -v "^WARN\|^$" | head -120; done
grep -E "^ *(2048|4096) +[0-9]+ .*(oneshot_ws|oneshot_wsh|oneshot ) " "$R/bench/tp2.rank0.log"
grep -h "share=0.0[06] copy-chunks=[02] sm-chunks=16 " "$R/proto-words-64mib.txt"
