#!/usr/bin/env bash
# Sixth run, on two GPUs of one host: every GPU JUnit class of the runtime modules with the code
# after this round's merges (the hierarchical test among them, which used to hang), then the
# copy-engine all-gather and reduce-scatter with 4 and 16 MiB pieces instead of the default
# 8 MiB, at 16, 64 and 256 MiB per rank beside NCCL, the pair ceiling again, and the fabric
# sweep's matrix of the pair.
# Usage: OUT=... bash bench/results/2026-11-26-four-gpus/scripts/run6.sh   (BUNDLE, GPURUN as run1.sh)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
OUT="${OUT:-$ROOT/bench/out}" && mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
B="${GPURUN:-$ROOT/.gpurun}"
BUNDLE="${BUNDLE:-$ROOT/app/target/gpucomm-bundle.tar.xz}"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.total --format=csv; } >"$OUT/host.txt" 2>&1
head -3 "$OUT/host.txt"
W=/tmp/run6 && mkdir -p "$W/g" && tar -xJf "$BUNDLE" -C "$W/g"
G="$W/g/gpucomm/bin/gpucomm"
rm -rf "$W/test-classes" && python3 -m zipfile -e "$B/tests/gpucomm-tests.jar" "$W/test-classes"
CP="$W/test-classes:$(ls "$B"/tests/*.jar "$W"/g/gpucomm/lib/*.jar | tr '\n' ':')"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
step() { # name, limit, command...: output in OUT/name.log, one line in OUT/steps.txt
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s" | tee -a "$OUT/steps.txt"
}
step junit-all 180 "$W/g/gpucomm/jre/bin/java" --enable-native-access=ALL-UNNAMED -jar "$B/junit.jar" \
  execute -cp "$CP" --scan-class-path "$W/test-classes" --include-tag gpu --fail-if-no-tests --details=tree --disable-banner
grep -E "tests (successful|failed|skipped|aborted)|✘" "$OUT/junit-all.log" | head -30
# two ranks: every collective and fused pattern validated, and the ranks' settings compared
step selftest-tp2 60 "$G" selftest --device cuda --world 2
tail -1 "$OUT/selftest-tp2.log"
for piece in 4194304 16777216; do
  for collective in allgather reducescatter; do
    GPUCOMM_COPYENGINE_PIECE_BYTES=$piece step "$collective-piece-$((piece >> 20))m" 40 "$G" bench \
      --device cuda --world 2 --collective "$collective" --sizes 16M,64M,256M \
      --algorithms nccl,copyengine --iterations 30 --warmup 5 --name "$collective-piece-$((piece >> 20))m" \
      --out "$OUT/$collective-piece-$((piece >> 20))m"
    echo "$collective, pieces of $((piece >> 20)) MiB (graph medians, µs):"
    grep -A6 '## Latency' "$OUT/$collective-piece-$((piece >> 20))m/report.md" | grep '^| ('
  done
done
for mib in 64 256; do
  step "ceiling-$mib" 10 python3 -u "$ROOT/bench/probes/copy-engine.py" --gpus 2 --mib "$mib"
  grep "push" "$OUT/ceiling-$mib.log"
done
# the fabric sweep's intra-node matrix of the pair
sed "s/WORLD/2/g" "$ROOT/bench/results/2026-11-26-fabric-sweep/scripts/fabric-intra-node.yaml" >"$W/fabric.yaml"
step fabric-pair 50 "$G" run -f "$W/fabric.yaml" --out "$OUT/fabric-pair"
grep -A12 "Degraded\|### One-way" "$OUT/fabric-pair/report.md" | head -24
cat "$OUT/steps.txt"
tar -czf /tmp/run6.tar.gz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/run6.tar.gz "$OUT/"
