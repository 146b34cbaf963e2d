// 16-byte vectors of one element type summed in fp32, shared by the all-reduce (allreduce.cu) and
// reduce-scatter (gather.cu) kernels: Lanes<T>::add folds a vector into fp32 accumulators (or
// starts them), Lanes<T>::pack rounds them back into a vector of T.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

// The two 16-bit types convert a pair of elements at a time.
template <typename Pair>
struct PairConversion;

template <>
struct PairConversion<__nv_bfloat162> {
  __device__ static float2 to_floats(__nv_bfloat162 pair) { return __bfloat1622float2(pair); }
  __device__ static __nv_bfloat162 from_floats(float a, float b) {
    return __floats2bfloat162_rn(a, b);
  }
};

template <>
struct PairConversion<__half2> {
  __device__ static float2 to_floats(__half2 pair) { return __half22float2(pair); }
  __device__ static __half2 from_floats(float a, float b) { return __floats2half2_rn(a, b); }
};

// Four pairs a vector.
template <typename Pair>
struct PairLanes {
  static constexpr int count = 8;
  __device__ static void add(float (&acc)[8], uint4 v, bool first) {
    const Pair* p = reinterpret_cast<const Pair*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 f = PairConversion<Pair>::to_floats(p[i]);
      acc[2 * i] = first ? f.x : acc[2 * i] + f.x;
      acc[2 * i + 1] = first ? f.y : acc[2 * i + 1] + f.y;
    }
  }
  __device__ static uint4 pack(const float (&acc)[8]) {
    uint4 v;
    Pair* p = reinterpret_cast<Pair*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      p[i] = PairConversion<Pair>::from_floats(acc[2 * i], acc[2 * i + 1]);
    }
    return v;
  }
};

template <typename T>
struct Lanes;

template <>
struct Lanes<__nv_bfloat16> : PairLanes<__nv_bfloat162> {};

template <>
struct Lanes<__half> : PairLanes<__half2> {};

template <>
struct Lanes<float> {
  static constexpr int count = 4;
  __device__ static void add(float (&acc)[4], uint4 v, bool first) {
    const float* p = reinterpret_cast<const float*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[i] = first ? p[i] : acc[i] + p[i];
  }
  __device__ static uint4 pack(const float (&acc)[4]) {
    uint4 v;
    float* p = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = acc[i];
    return v;
  }
};
