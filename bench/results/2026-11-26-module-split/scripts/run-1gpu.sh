#!/usr/bin/env bash
# The tree on a host with one GPU: the GPU tests (those that need two GPUs skip, saying so),
# selftest, a program job on the GPU, `gpucomm diag` (and its store on a taken port), the
# launcher's memory check of a program, the driver library path that names a fifo, a rank
# failing after NCCL is up, a JVM option the bundle's JVM refuses, and a UTF-8 job file name
# without a locale.
# Usage: bash bench/results/2026-11-26-module-split/scripts/run-1gpu.sh   (optional: RUN)
#   Needs 1 NVIDIA GPU; BUNDLE, GPURUN, WORK and OUT as for run101.sh (prepare.sh builds them).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
WORK="${WORK:-${TMPDIR:-/tmp}}"
RUN="${RUN:-301}"
R="$WORK/r$RUN"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; } >"$R/host.txt" 2>&1
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
rm -rf "$WORK/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$WORK/test-classes"
step junit 300 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute \
  -cp "$WORK/test-classes:$CP" --scan-class-path "$WORK/test-classes" --include-tag gpu \
  --fail-if-no-tests --details=summary --disable-banner
grep -E "tests (successful|failed|skipped|aborted)" "$R/junit.log"
step selftest 120 "$G" selftest --device cuda --world 1
tail -1 "$R/selftest.log"
# a program on the GPU: the launcher counts its buffers from the programs before the rank starts
sed 's/^  worldSize: 2/  worldSize: 1/; s/^  ranksPerPod: 2/  ranksPerPod: 1/' \
  "$ROOT/examples/row-parallel-linear.yaml" >"$R/row-parallel-1gpu.yaml"
step program 180 "$G" run -f "$R/row-parallel-1gpu.yaml" --device cuda --out "$R/program"
grep -E "pipelined|unpipelined|valid" "$R/program.log" | head -6
# one that cannot fit this host: refused with its count, exit 2, before any rank
sed 's/      chunks: 2/      chunks: 2\n      shape: {m: 400000, n: 400000, k: 64}/' \
  "$R/row-parallel-1gpu.yaml" >"$R/row-parallel-huge.yaml"
step program-too-large 60 "$G" run -f "$R/row-parallel-huge.yaml" --device cuda --out "$R/huge"
tail -1 "$R/program-too-large.log"
# one whose shape the chunks cannot split: the job file's usage error, exit 2, before any rank
sed 's/      chunks: 2/      chunks: 2\n      shape: {m: 8191, n: 1024, k: 1024}/' \
  "$R/row-parallel-1gpu.yaml" >"$R/row-parallel-indivisible.yaml"
step program-indivisible 60 "$G" run -f "$R/row-parallel-indivisible.yaml" --device cuda --out "$R/odd"
tail -1 "$R/program-indivisible.log"
step diag 120 "$G" diag --rank 0 --world 1 --store 127.0.0.1:29611 --check
tail -3 "$R/diag.log"
# a store port another process holds: the job's failure (exit 1), not a usage error (2)
python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 29613)); s.listen(); time.sleep(90)' &
HOLDER=$!
sleep 1
step diag-port-taken 60 "$G" diag --rank 0 --world 1 --store 127.0.0.1:29613 --check
kill "$HOLDER"
tail -1 "$R/diag-port-taken.log"
# an address that is not this host's (TEST-NET-1): the command's usage error, exit 2
step diag-foreign-address 60 "$G" diag --rank 0 --world 1 --store 192.0.2.1:29614 --check
tail -1 "$R/diag-foreign-address.log"
# a driver path that is a fifo is passed over for the usual places, not opened
mkfifo "$R/libcuda-fifo.so.1"
GPUCOMM_CUDA_DRIVER="$R/libcuda-fifo.so.1" step fifo-driver 60 "$G" selftest --device cuda --world 1
tail -1 "$R/fifo-driver.log"
# a rank that fails once its communicator is up aborts NCCL (not destroys it: a failed run's
# collectives may never finish), as NCCL's own log says, and the run exits 1 naming it
sed 's/^  worldSize: 2/  worldSize: 1/; s/^  ranksPerPod: 2/  ranksPerPod: 1/' \
  "$ROOT/examples/allreduce-sweep.yaml" >"$R/sweep-1gpu.yaml"
GPUCOMM_TEST_FAIL_RANK=0 GPUCOMM_TEST_FAIL_AT=workload NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT \
  step failing-rank 120 "$G" run -f "$R/sweep-1gpu.yaml" --device cuda --out "$R/failing"
grep -E "gpucomm run:" "$R/failing-rank.log" | tail -1
echo "NCCL aborts: $(grep -c 'Abort COMPLETE' "$R/failing-rank.log"), destroys: $(grep -c 'Destroy COMPLETE' "$R/failing-rank.log")"
# a JVM option the bundle's JVM refuses: the launcher's one-line usage error, exit 2, nothing run
GPUCOMM_JAVA_OPTS="-Xmx16g -Xmx1" step java-opts-refused 60 "$G" selftest --device cuda --world 1
cat "$R/java-opts-refused.log"
# a job file with a UTF-8 name, run from a shell without a locale: the launcher reads it in C.UTF-8
cp "$R/sweep-1gpu.yaml" "$R/café.yaml"
(unset LANG LC_ALL LC_CTYPE; step utf8-name 120 "$G" run -f "$R/café.yaml" --device cuda --out "$R/utf8")
tail -1 "$R/utf8-name.log"
cp "$R/steps.txt" "$OUT/steps.txt"
