#!/usr/bin/env bash
# 2 x H200: columnParallelLinear at TP2 with instantaneous power (power.draw.instant) and SM clock
# sampled every 5 ms (nvidia-smi queries only): the power each form draws under the cap.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
B="$PWD/.gpurun"
R=/tmp/r26
mkdir -p "$R" /tmp/g && tar -xJf "$B/gpucomm-bundle.tar.xz" -C /tmp/g
G=/tmp/g/gpucomm/bin/gpucomm
{ date -u; nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv; source "$B/libs.sh"; } >"$R/host.txt" 2>&1
source "$B/libs.sh" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
for run in 1; do
  nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw.instant,power.draw.average,clocks_event_reasons.active --format=csv,nounits -lms 5 >"$R/smi-$run.csv" 2>&1 &
  smi=$!
  sleep 1
  date -u +%H:%M:%S.%N >"$R/start-$run.txt"
  timeout 120 "$G" run -f "$B/programs/column-parallel-linear-tp2.yaml" --out "$R/column-parallel-linear-tp2-$run" >"$R/column-parallel-linear-tp2-$run.log" 2>&1
  echo "exit $?" >>"$R/start-$run.txt"
  date -u +%H:%M:%S.%N >>"$R/start-$run.txt"
  sleep 1
  kill $smi
done
tar -czf "$OUT/r26.tar.gz" -C /tmp r26
for run in 1; do cat "$R/start-$run.txt"; grep -E '^\| ' "$R/column-parallel-linear-tp2-$run.log" | head -8; wc -l "$R/smi-$run.csv"; done
head -3 "$R/smi-1.csv"
