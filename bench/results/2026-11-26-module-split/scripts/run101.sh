#!/usr/bin/env bash
# The tree after the module split, on a 2-GPU host: every GPU test, selftest, a TP2 sweep beside
# NCCL, the diagnostics through `gpucomm diag`, and a job of two pods with one GPU each.
# Usage: bash bench/results/2026-11-26-module-split/scripts/run101.sh   (optional: RUN)
#   Runs from any folder; needs 2 NVIDIA GPUs and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz:
#           ./mvnw -q -pl app -am package -Pbundle -DskipTests)
#   GPURUN  folder with what the repository does not hold (default .gpurun at the repository
#           root): tests/*.jar (the runtime modules' test classes and their test libraries, see
#           bench/README.md) and junit.jar (the JUnit console launcher)
#   WORK    scratch folder (default $TMPDIR or /tmp); OUT receives the raw output (default bench/out)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-101}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$R/host.txt" 2>&1
source "$ROOT/bench/libs.sh" >"$R/libs.txt"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" | tee -a "$R/steps.txt"
  tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
}
head -3 "$R/host.txt"
CP="$(ls "$B"/tests/*.jar "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
# the bundle's runtime has no zip file system, so JUnit scans the test classes unpacked; a scan
# that finds no test fails the step rather than passing it
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
step junit 240 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$WORK/test-classes:$CP" --scan-class-path "$WORK/test-classes" --include-tag gpu \
  --fail-if-no-tests --details=summary --disable-banner
grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
step selftest-tp2 120 "$G" selftest --device cuda --world 2
tail -1 "$R/selftest-tp2.log"
step quick-start 120 "$G" run -f "$ROOT/examples/allreduce-sweep.yaml" --out "$R/quick-start"
grep '^| ' "$R/quick-start.log" | head -12
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step bench-tp2 180 "$G" bench --device cuda --world 2 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot \
  --name tp2 --out "$R/tp2"
grep -A14 '## Latency' "$R/tp2/report.md" | grep 'MiB |'
# the diagnostics through the command: one process per GPU, rank 0 hosts the store
diag_tp2() {
  local pids=() status=0
  for rank in 0 1; do
    "$G" diag --rank "$rank" --world 2 --store 127.0.0.1:29611 --check --bench --tokens 32,4096 \
      --json "$R/diag-tp2.json" >"$R/diag-tp2.rank$rank.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  return $status
}
export -f diag_tp2; export G R
step diag-tp2 180 bash -c diag_tp2
tail -5 "$R/diag-tp2.rank0.log"
# rank 0's rows, replaced whole after each: valid JSON however the run ends
python3 -c 'import json,sys; print("diag json rows:", len(json.load(open(sys.argv[1]))))' "$R/diag-tp2.json"
# two pods of one GPU: the transport NCCL chose, over NVLink and with peer access and shared
# memory turned off (NCCL then takes its socket transport, as between nodes without a fabric)
rm -f /tmp/gpucomm-nccl-*.log
step two-pods 180 "$G" run -f "$HERE/two-pods.yaml" --out "$R/two-pods"
grep "fabric:" "$R/two-pods.log"
mkdir -p "$R/nccl-logs/nvlink" && mv /tmp/gpucomm-nccl-*.log "$R/nccl-logs/nvlink/" 2>/dev/null
NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 step two-pods-sockets 180 "$G" run -f "$HERE/two-pods.yaml" \
  --out "$R/two-pods-sockets"
grep "fabric:" "$R/two-pods-sockets.log"
mkdir -p "$R/nccl-logs/sockets" && mv /tmp/gpucomm-nccl-*.log "$R/nccl-logs/sockets/" 2>/dev/null
grep -h " via \|NET/\|Pattern" "$R"/nccl-logs/*/*.log | sort | uniq -c | sort -rn | head -12
# a rank that fails as its peers start the workload (they wait in kernels spinning on its flags,
# or in NCCL across two pods): each job must end within seconds with exit 1, naming that rank
GPUCOMM_TEST_FAIL_RANK=1 GPUCOMM_TEST_FAIL_AT=workload step fail-mid-job 120 "$G" run \
  -f "$ROOT/examples/allreduce-sweep.yaml" --device cuda --out "$R/fail-mid-job"
grep "failed" "$R/fail-mid-job.log" | tail -1
# across two pods the failing rank aborts its cross-pod NCCL communicator (NCCL's own log counts
# it), over NVLink and over sockets, whichever rank fails; its peer leaves when the store says so
nccl_ends() {
  echo "$1: NCCL aborts $(grep -c 'Abort COMPLETE' "$R/$1.log"), destroys $(grep -c 'Destroy COMPLETE' "$R/$1.log")"
}
for failing in 1 0; do
  GPUCOMM_TEST_FAIL_RANK=$failing GPUCOMM_TEST_FAIL_AT=workload NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT \
    step fail-mid-job-two-pods-rank$failing 120 "$G" run -f "$HERE/two-pods.yaml" \
    --out "$R/fail-mid-job-two-pods-rank$failing"
  grep "gpucomm run:" "$R/fail-mid-job-two-pods-rank$failing.log" | tail -1
  nccl_ends fail-mid-job-two-pods-rank$failing
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 GPUCOMM_TEST_FAIL_RANK=$failing GPUCOMM_TEST_FAIL_AT=workload \
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT step fail-mid-job-two-pods-sockets-rank$failing 120 "$G" run \
    -f "$HERE/two-pods.yaml" --out "$R/fail-mid-job-two-pods-sockets-rank$failing"
  grep "gpucomm run:" "$R/fail-mid-job-two-pods-sockets-rank$failing.log" | tail -1
  nccl_ends fail-mid-job-two-pods-sockets-rank$failing
done
# what the runs left in /dev/shm (a rank's files go once its peers mapped them, or with the rank)
ls /dev/shm | grep '^gpucomm-' >"$R/shm-left.txt"
echo "gpucomm files left in /dev/shm: $(wc -l <"$R/shm-left.txt")"
tar -czf "$OUT/r$RUN.tar.gz" -C "$WORK" "r$RUN"
cp "$R/tp2/report.md" "$OUT/tp2-report.md" 2>/dev/null
cp "$R/steps.txt" "$OUT/steps.txt"
