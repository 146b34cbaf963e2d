#!/usr/bin/env bash
# Hierarchical against flat ring all-reduce on the CPU backend, 4 pods x 2 ranks at 16 MiB, the
# pods in network namespaces of their own: first the in-pod (shared-memory) all-reduce rate of 2
# ranks, then the job across pods with unlimited links, then with every pod's link limited to a
# tenth of the in-pod rate. Prints the table of the README (summary.py).
# Usage: sudo bash run.sh          (needs root, iproute2, tc and python3; a few minutes)
#   GPUCOMM     the gpucomm launcher (default: the bundle that `./mvnw -pl app -am package
#               -Pbundle -DskipTests` leaves in app/target/bundle/gpucomm)
#   ITERATIONS  timed calls per algorithm (default 20); OUT: raw output (default bench/out/hier-cpu)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
G="${GPUCOMM:-$ROOT/app/target/bundle/gpucomm/bin/gpucomm}"
ITERATIONS="${ITERATIONS:-20}"
OUT="${OUT:-$ROOT/bench/out/hier-cpu}"
PODS=4
RANKS_PER_POD=2
JAVA_OPTS="${GPUCOMM_JAVA_OPTS:--XX:+UseSerialGC -Xmx2g}"
rm -rf "$OUT" && mkdir -p "$OUT"
bash "$HERE/pods-down.sh"
trap 'bash "$HERE/pods-down.sh"' EXIT
{ date -u; uname -r; nproc; grep -m1 'model name' /proc/cpuinfo; } >"$OUT/host.txt"

# 1. The in-pod rate: 2 ranks through shared memory, no network.
GPUCOMM_JAVA_OPTS="$JAVA_OPTS" timeout 300 "$G" bench --device cpu --world 2 --sizes 16K,16M \
  --algorithms ring,hierarchical --iterations "$ITERATIONS" --warmup 3 --no-graph \
  --name in-pod --out "$OUT/in-pod" >"$OUT/in-pod.log" 2>&1
RATE_MBIT="$(python3 "$HERE/summary.py" --tenth-of-in-pod "$OUT/in-pod/report.json")"
echo "in-pod rate: $(python3 "$HERE/summary.py" --in-pod "$OUT/in-pod/report.json"); links limited to ${RATE_MBIT}mbit"

# 2. One job across the pods: every pod's `gpucomm launch` in its namespace, pod 0 hosts the store.
run_job() {
  local name="$1" dir="$OUT/$1" pids=() status=0
  mkdir -p "$dir"
  sed -e "s/NAME/$name/" -e "s/ITERATIONS/$ITERATIONS/" "$HERE/job.yaml" >"$dir/job.yaml"
  for ((p = 0; p < PODS; p++)); do
    local home="$dir/pod$p" report=()
    mkdir -p "$home"
    ((p == 0)) && report=(GPUCOMM_REPORT_DIR="$dir/report")
    ip netns exec "hb-$p" env -i PATH="$PATH" HOME="$home" GPUCOMM_JAVA_OPTS="$JAVA_OPTS" \
      GPUCOMM_JOB="$name" GPUCOMM_POD_INDEX="$p" GPUCOMM_RANKS_PER_POD="$RANKS_PER_POD" \
      GPUCOMM_WORLD_SIZE="$((PODS * RANKS_PER_POD))" GPUCOMM_RENDEZVOUS=10.214.1.1:29500 \
      GPUCOMM_POD_ADDRESS="10.214.1.$((p + 1))" GPUCOMM_JOB_FILE="$dir/job.yaml" \
      GPUCOMM_TERMINATION_LOG="$home/termination-log" "${report[@]}" \
      timeout 300 "$G" launch >"$home/launch.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  echo "$name: exit $status"
  return $status
}
bash "$HERE/pods-up.sh" "$PODS"
run_job unlimited
bash "$HERE/pods-down.sh"
bash "$HERE/pods-up.sh" "$PODS" "${RATE_MBIT}mbit"
tc -s qdisc show dev hbv0 >"$OUT/tbf-before.txt"
run_job limited
tc -s qdisc show dev hbv0 >"$OUT/tbf-after.txt"
python3 "$HERE/summary.py" --table "$OUT/in-pod/report.json" "$OUT/unlimited/report/report.json" \
  "$OUT/limited/report/report.json" "$RATE_MBIT" "$PODS" | tee "$OUT/table.md"
