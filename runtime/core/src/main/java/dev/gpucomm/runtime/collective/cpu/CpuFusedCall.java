package dev.gpucomm.runtime.collective.cpu;

import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.lang.foreign.MemorySegment;

/** The memory and shape of one fused all-reduce call on the CPU backend. */
record CpuFusedCall(
    MemorySegment input,
    MemorySegment residualIn,
    MemorySegment gamma,
    MemorySegment residualOut,
    MemorySegment output,
    long tokens,
    NormEpilogue epilogue,
    ElementCodec codec) {

  int outputElementBytes() {
    return epilogue.outputElementBytes(codec.dtype());
  }
}
