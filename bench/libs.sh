# Finds NCCL and cuBLAS where the dynamic loader does not: exports NCCL_LIBRARY and
# GPUCOMM_CUBLAS_LIBRARY (and their folder on LD_LIBRARY_PATH, for their own dependencies).
find_lib() {
  find /usr /opt /lib -name "$1" 2>/dev/null | head -1
}
if ! ldconfig -p | grep -q 'libnccl.so.2 '; then
  p="$(find_lib libnccl.so.2)"
  if [ -n "$p" ]; then export NCCL_LIBRARY="$p"; export LD_LIBRARY_PATH="$(dirname "$p")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
fi
if ! ldconfig -p | grep -q 'libcublas.so.13 '; then
  p="$(find_lib libcublas.so.13)"
  if [ -n "$p" ]; then export GPUCOMM_CUBLAS_LIBRARY="$p"; export LD_LIBRARY_PATH="$(dirname "$p")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
fi
echo "NCCL_LIBRARY=${NCCL_LIBRARY:-<ld.so>} GPUCOMM_CUBLAS_LIBRARY=${GPUCOMM_CUBLAS_LIBRARY:-<ld.so>} LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
