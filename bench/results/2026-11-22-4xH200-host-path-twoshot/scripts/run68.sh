#!/usr/bin/env bash
# 4 x H200: the host path with its hand-off words in peer memory (copy streams wait on their own GPU). TP4: GPU tests,
# selftests (defaults; host path forced), the README sweeps (trtllm, vllm, tune, measured),
# diagnostics checks and bench, host path off, share x chunks sweep, repeats, timeline. TP2 (GPUs 0
# and 1): selftest with the host path forced on both kernels, checks, the 64 MiB one-shot.
# Usage: bash bench/results/2026-11-22-4xH200-host-path-twoshot/scripts/run68.sh
#   Runs from any folder; needs 4 NVIDIA GPUs connected by NVLink and the environment below.
#   BUNDLE  the portable bundle built from the tree (default app/target/gpucomm-bundle.tar.xz)
#   GPURUN  staging folder for what the repository does not hold (default .gpurun at the
#           repository root):
#           tests/ (gpucomm-tests.jar, assertj-core-3.27.3.jar, byte-buddy-1.17.6.jar), junit.jar
#   WORK    scratch folder for the unpacked bundle and raw output (default $TMPDIR or /tmp; no spaces)
#   OUT     folder that receives the raw output (default bench/out, which git ignores)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
LIBS="$ROOT/bench/libs.sh"
WORK="${WORK:-${TMPDIR:-/tmp}}"
cd "$ROOT"
R="$WORK/r68"
mkdir -p "$R" "$WORK/g" && tar -xJf "$BUNDLE" -C "$WORK/g"
G="$WORK/g/gpucomm/bin/gpucomm"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv; nvidia-smi topo -m; source "$LIBS"; } >"$R/host.txt" 2>&1
source "$LIBS" >/dev/null
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() {
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$R/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s (total $SECONDS s)" >>"$R/steps.txt"
  tar -czf "$OUT/r68.tar.gz" -C "$WORK" r68
}
cd "$R"
D="bash $ROOT/bench/cuda-diagnostics.sh $G"
mkdir -p diag diag-off timeline diag2 bench2
step diag 150 $D 4 "$R/diag" --check --bench --samples 100 --json "$R/diag/bench.json"
GPUCOMM_HOST_PATH=off step diag-off 60 $D 4 "$R/diag-off" --bench --samples 100 --runners nccl,kernel:twoshot_ws,twoshot --tokens 2048,4096 --json "$R/diag-off/bench.json"
for cfg in 0.06:2 0.10:2 0.12:2 0.10:1; do
  share=${cfg%:*} chunks=${cfg#*:}
  mkdir -p "sweep/s$share-c$chunks"
  GPUCOMM_HOST_PATH_SHARE=$share GPUCOMM_HOST_PATH_CHUNKS=$chunks \
    step "sweep-s$share-c$chunks" 60 $D 4 "$R/sweep/s$share-c$chunks" --bench --samples 100 --runners kernel:twoshot_ws,kernel:twoshot_wsh --tokens 4096
done
for i in 1 2 3; do
  mkdir -p "repeat-$i"
  step "repeat-$i" 60 $D 4 "$R/repeat-$i" --bench --samples 100 --runners nccl,kernel:twoshot_ws,kernel:twoshot_wsh,twoshot --tokens 4096 --json "$R/repeat-$i/bench.json"
done
step timeline 60 $D 4 "$R/timeline" --timeline
step selftest-tp4 90 "$G" selftest --device cuda --world 4
GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp4 90 "$G" selftest --device cuda --world 4
step bench-tp4-trtllm 90 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name tp4-trtllm --out "$R/tp4-trtllm"
step bench-tp4-vllm 60 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto --heuristic vllm --name tp4-vllm --out "$R/tp4-vllm"
step tune-tp4 90 "$G" tune -f "$HERE/tune-tp4.yaml" --out "$R/tune-tp4"
step bench-tp4-measured 60 "$G" bench --device cuda --world 4 "${T[@]}" --algorithms auto,nccl --heuristic measured --tuning-ref "$R/tune-tp4/tuning.json" --name tp4-measured --out "$R/tp4-measured"
GPUCOMM_HOST_PATH=on GPUCOMM_HOST_PATH_MIN_BYTES=16 GPUCOMM_HOST_PATH_SHARE=0.5 GPUCOMM_LAMPORT_MAX_BYTES=0 \
  step selftest-host-tp2 60 "$G" selftest --device cuda --world 2
step diag2 90 $D 2 "$R/diag2" --check
step bench2 60 $D 2 "$R/bench2" --bench --samples 100 --runners nccl,kernel:oneshot_ws,kernel:oneshot_wsh,oneshot --tokens 4096 --json "$R/bench2/bench.json"
mkdir -p timeline2
step timeline2 60 $D 2 "$R/timeline2" --timeline
for share in 0.08 0.10; do
  mkdir -p "sweep2/s$share"
  GPUCOMM_HOST_PATH_SHARE=$share step "sweep2-s$share" 60 $D 2 "$R/sweep2/s$share" --bench --samples 100 --runners kernel:oneshot_ws,kernel:oneshot_wsh --tokens 4096
done
CP="$B/tests/gpucomm-tests.jar:$B/tests/assertj-core-3.27.3.jar:$B/tests/byte-buddy-1.17.6.jar:$(ls "$WORK"/g/gpucomm/lib/*.jar | tr '\n' ':')"
step junit 120 "$WORK/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" execute -cp "$CP" \
  --select-class dev.gpucomm.runtime.device.cuda.CudaDeviceGpuTest --select-class dev.gpucomm.runtime.collective.cuda.CudaCommunicatorGpuTest \
  --select-class dev.gpucomm.runtime.hostir.programs.ProgramsOnCudaTest --details=tree
cat "$R/steps.txt"
grep -E "communicator:|check:|diagnostics:" "$R/diag/tp4.rank0.log" | head -12
grep -E "check:|diagnostics:" "$R/diag2/tp2.rank0.log" | tail -3
grep -E "^ *(2048|4096) +[0-9]+ .*(nccl|twoshot)" "$R/diag/tp4.rank0.log"
echo "== host path off"; grep -E "^ *(2048|4096) +[0-9]+ " "$R/diag-off/tp4.rank0.log"
for f in "$R"/sweep/*/tp4.rank0.log; do echo "== $f"; grep -E "^ *4096 +[0-9]+ " "$f"; done
for i in 1 2 3; do echo "== repeat $i"; grep -E "^ *4096 +[0-9]+ " "$R/repeat-$i/tp4.rank0.log"; done
for d in tp4-trtllm tp4-measured tune-tp4; do echo "== $d"; sed -n '/## Latency/,/## Eager/p' "$R/$d/report.md" | grep "^| (" | tail -3; done
grep -E "^ *4096 +[0-9]+ " "$R/bench2/tp2.rank0.log"
for f in "$R"/sweep2/*/tp2.rank0.log; do echo "== $f"; grep -E "^ *4096 +[0-9]+ " "$f"; done
grep -A12 "oneshot_wsh, 4096" "$R/timeline2/tp2.rank0.log"
grep -h "selftest" "$R"/selftest-*.log | tail -3
grep -E "tests (successful|failed|skipped)" "$R/junit.log"
grep -A12 "twoshot_wsh, 4096" "$R/timeline/tp4.rank0.log"
