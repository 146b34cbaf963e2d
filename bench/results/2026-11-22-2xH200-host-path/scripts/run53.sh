#!/usr/bin/env bash
# 2 x H200: the runtime's host path with its share cut on 256-byte boundaries ("aligned"), and the
# same with the copy streams' waits flushing remote writes ("flush"), alternating; "aligned" once
# more without programmatic dependent launch.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r53
mkdir -p "$R" /tmp/base && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/base
for v in aligned flush; do
  cp -r /tmp/base "/tmp/$v" && cp "$B/variants/$v.jar" "/tmp/$v/gpucomm/lib/gpucomm-runtime-0.1.0-SNAPSHOT.jar"
done
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
diag() {  # diag NAME VARIANT ARGS...
  local name="$1" v="$2" start=$SECONDS
  shift 2
  mkdir -p "$R/$name"
  timeout 90 bash "$B/cuda-diagnostics.sh" "/tmp/$v/gpucomm/bin/gpucomm" 2 "$R/$name" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r53.tar.gz" -C /tmp r53
}
diag aligned-1 aligned --bench --samples 30
diag flush-1 flush --bench --samples 30
diag aligned-2 aligned --bench --samples 30
diag flush-2 flush --bench --samples 30
GPUCOMM_PDL=off diag aligned-nopdl aligned --bench --samples 30
cat "$R/steps.txt"
for d in aligned-1 flush-1 aligned-2 flush-2 aligned-nopdl; do
  echo "== $d"; grep -E "communicator:" "$R/$d/tp2.rank0.log"; grep -E "^ *(1024|2048|4096) +[0-9]+ .*(oneshot_ws|oneshot_wsh|oneshot ) " "$R/$d/tp2.rank0.log"
done
