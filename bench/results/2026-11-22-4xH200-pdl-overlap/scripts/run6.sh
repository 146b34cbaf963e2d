#!/usr/bin/env bash
# 4 × H200: gpucomm tune with graph timing (the table ranks by graph medians), then the measured
# heuristic from those tables, at TP2 and TP4.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r6
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r6.tar.gz" -C /tmp r6
}
cd "$R"
step tune-tp2 60 "$G" tune -f "$B/tune-tp2.yaml" --out "$R/tune-tp2"
step bench-tp2-measured 30 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp2/tuning.json" --name tp2-measured --out "$R/tp2-measured"
step tune-tp4 60 "$G" tune -f "$B/tune-tp4.yaml" --out "$R/tune-tp4"
step bench-tp4-measured 30 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic measured --tuning-ref "$R/tune-tp4/tuning.json" --name tp4-measured --out "$R/tp4-measured"
cp "$R/steps.txt" "$OUT/steps.txt"
cat "$R/steps.txt"
for d in tp2-measured tp4-measured; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| ("; done
grep -h "^| (" "$R/tune-tp2/report.md" | head -8
