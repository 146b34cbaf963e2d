#!/usr/bin/env bash
# The CUDA measurements of bench/results, on one host with NVLink-connected GPUs: kernel
# comparison (diagnostics: every kernel, the warp-specialized ones included, then their pipeline
# depths at 16 and 64 MiB; 32 and 64 MiB with the host path off), gpucomm bench with the trtllm
# and vllm heuristics and NCCL in place, selftest, tune and the PyTorch comparison, at each of
# TP8, TP4 and TP2 that the host has GPUs for (GPUs 0 to TP - 1; GPUCOMM_WORLDS="4 2" picks
# others).
#
#   bench/run-h200.sh GPUCOMM_BUNDLE.tar.xz OUTPUT_DIR
#
# Keep NVLink multicast off where the GPUs are shared (the exports below).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
set -u
bundle="$1"
out="$(mkdir -p "$2" && cd "$2" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
tar -xJf "$bundle" -C "$work"
G="$work/gpucomm/bin/gpucomm"
export GPUCOMM_JAVA_OPTS="-Xmx16g"
T=(--tokens 32,64,128,256,512,1024,2048,4096 --hidden 8192)
step() { # name, timeout seconds, command...
  local name="$1" limit="$2" start=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  echo "$name: exit $? after $((SECONDS - start)) s" | tee -a "$out/steps.txt"
}
cd "$out"
worlds="${GPUCOMM_WORLDS:-}"
if [ -z "$worlds" ]; then
  gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"
  for world in 8 4 2; do
    if [ "$world" -le "$gpus" ]; then worlds="$worlds $world"; fi
  done
fi
if [ -z "$worlds" ]; then
  echo "run-h200.sh: needs at least 2 GPUs (nvidia-smi lists ${gpus:-none})" >&2
  exit 2
fi
for world in $worlds; do
  # Lamport buffers of 4 MiB so that every kernel is measured up to 4 MiB.
  GPUCOMM_LAMPORT_MAX_BYTES=4194304 GPUCOMM_LAMPORT2_MAX_BYTES=4194304 \
    step "diagnostics-tp$world" 300 bash "$here/cuda-diagnostics.sh" "$G" "$world" "$out" \
    --check --bench --json "$out/diagnostics-tp$world.json"
  # The same large calls with the host path off (PCIe beside NVLink), to see what it adds here.
  mkdir -p "$out/host-path-off"
  GPUCOMM_HOST_PATH=off \
    step "host-path-off-tp$world" 120 bash "$here/cuda-diagnostics.sh" "$G" "$world" "$out/host-path-off" \
    --bench --tokens 2048,4096 --json "$out/host-path-off-tp$world.json"
  mkdir -p "$out/chunks"
  step "chunks-tp$world" 300 bash "$here/cuda-diagnostics.sh" "$G" "$world" "$out/chunks" \
    --tune-chunks --json "$out/chunks-tp$world.json"
  step "bench-tp$world-trtllm" 300 "$G" bench --device cuda --world "$world" "${T[@]}" \
    --algorithms auto,nccl,oneshot,twoshot --heuristic trtllm --name "tp$world-trtllm" --out "$out/tp$world-trtllm"
  # NCCL as torch.distributed.all_reduce runs it (output over input), to set beside compare-torch.
  step "bench-tp$world-nccl-in-place" 300 "$G" bench --device cuda --world "$world" "${T[@]}" \
    --algorithms nccl --in-place --name "tp$world-nccl-in-place" --out "$out/tp$world-nccl-in-place"
  step "bench-tp$world-vllm" 300 "$G" bench --device cuda --world "$world" "${T[@]}" \
    --algorithms auto --heuristic vllm --name "tp$world-vllm" --out "$out/tp$world-vllm"
  step "selftest-tp$world" 300 "$G" selftest --device cuda --world "$world"
  cat >"$out/tune-tp$world.yaml" <<YAML
apiVersion: gpucomm.dev/v1alpha1
kind: CommJob
metadata:
  name: tune-tp$world
spec:
  worldSize: $world
  ranksPerPod: $world
  device: cuda
  workload:
    kind: tune
    tune: {dtype: bf16, hiddenSize: 8192, tokens: [32, 64, 128, 256, 512, 1024, 2048, 4096],
           warmupIterations: 10, iterations: 100, tableName: h200-nvlink}
  timeoutSeconds: 300
YAML
  step "tune-tp$world" 300 "$G" tune -f "$out/tune-tp$world.yaml" --out "$out/tune-tp$world"
  step "torch-tp$world" 300 python3 "$here/compare-torch.py" --world "$world" --port $((29650 + world)) \
    --json "$out/torch-tp$world.json"
done
