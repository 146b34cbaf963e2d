// Memory-ordering primitives of gpucomm's peer-memory kernels (allreduce.cu, gather.cu,
// fusion.cu), and the wait that programmatic dependent launch needs. Every kernel that orders data
// between GPUs uses these, so their scope (.sys: other GPUs and the host see the order) is decided
// here once.
#pragma once

#include <stdint.h>

__device__ __forceinline__ void fence_acq_rel_sys() {
  asm volatile("fence.acq_rel.sys;" ::: "memory");
}

__device__ __forceinline__ void st_relaxed_sys(uint32_t* addr, uint32_t value) {
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(addr), "r"(value) : "memory");
}

__device__ __forceinline__ void st_release_sys(uint32_t* addr, uint32_t value) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(addr), "r"(value) : "memory");
}

__device__ __forceinline__ uint32_t ld_acquire_sys(const uint32_t* addr) {
  uint32_t value;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(addr) : "memory");
  return value;
}

__device__ __forceinline__ uint32_t ld_relaxed_sys(const uint32_t* addr) {
  uint32_t value;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(addr) : "memory");
  return value;
}

// Volatile 16-byte accesses: the Lamport kernels poll slots a peer stores into, so every load must
// reach memory (no caching of an earlier, still-empty value).
__device__ __forceinline__ uint4 ld_volatile_v4(const uint4* addr) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(addr)
               : "memory");
  return v;
}

__device__ __forceinline__ void st_volatile_v4(uint4* addr, uint4 v) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(addr), "r"(v.x),
               "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// Programmatic dependent launch: the host may launch a kernel so that it is scheduled while the
// previous kernel on the stream is still finishing. `griddepcontrol.wait` comes first, before any
// memory is touched: it returns once the previous grid has completed and its writes are visible
// (and at once for an ordinary launch). `launch_dependents` then lets the next launch of the stream
// be scheduled as our blocks retire; it waits for this grid the same way.
__device__ __forceinline__ void wait_for_previous_grid() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// The rank whose slice holds vector v of a two-shot call: slices of `part` vectors, the last rank
// also taking the remainder (all of them when there are fewer vectors than ranks). Calls hold at
// most a peer area's capacity, so vector indices fit in 32 bits.
__device__ __forceinline__ int slice_owner(long long v, long long part, int world) {
  if (part == 0) return world - 1;
  const uint32_t owner = static_cast<uint32_t>(v) / static_cast<uint32_t>(part);
  return owner < static_cast<uint32_t>(world - 1) ? static_cast<int>(owner) : world - 1;
}
