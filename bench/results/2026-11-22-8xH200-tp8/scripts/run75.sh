#!/usr/bin/env bash
# 8 x H200: PyTorch's all-reduce at TP8 (compare-torch.py with its per-element check), then the
# TP8 sweep again with run 73's tuning table (measured heuristic) and the 64 MiB bench repeated.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
W="$PWD"
R=/tmp/r75
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
source "$B/libs.sh" >"$R/libs.txt" 2>&1
export GPUCOMM_JAVA_OPTS="-Xmx8g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r75.tar.gz" -C /tmp r75
}
D="bash $B/cuda-diagnostics.sh $G"
step torch-tp8 240 python3 "$W/bench/compare-torch.py" --world 8 --tokens 32,64,128,256,512,1024,2048,4096 --json "$R/torch-tp8.json"
step bench-tp8-measured 90 "$G" bench --device cuda --world 8 "${T[@]}" --algorithms auto,nccl,twoshot --heuristic measured --tuning-ref "$B/tuning-tp8.json" --name tp8-measured --out "$R/tp8-measured"
for i in 1 2; do
  mkdir -p "$R/repeat-$i"
  step "repeat-$i" 60 $D 8 "$R/repeat-$i" --bench --samples 100 --runners nccl,kernel:twoshot,twoshot --tokens 2048,4096
done
cat "$R/steps.txt"
tail -30 "$R/torch-tp8.log"
sed -n '/## Latency/,/## Eager/p' "$R/tp8-measured/report.md" | grep "^| ("
for i in 1 2; do grep -E "^ *(2048|4096) +[0-9]+ " "$R/repeat-$i/tp8.rank0.log"; done
