package dev.gpucomm.runtime.device.cuda;

import java.lang.foreign.MemorySegment;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;

/**
 * JCuda handle types that also reveal their native value, so that the same handle can be passed to
 * the FFM hot path. JCuda's native code fills the inherited field, so these subclasses work
 * wherever JCuda expects its own type.
 */
final class JCudaHandles {
  private JCudaHandles() {}

  /** A stream handle. */
  static final class Stream extends CUstream {
    MemorySegment segment() {
      return MemorySegment.ofAddress(getNativePointer());
    }
  }

  /** An event handle. */
  static final class Event extends CUevent {
    MemorySegment segment() {
      return MemorySegment.ofAddress(getNativePointer());
    }
  }

  /** A kernel function handle. */
  static final class Function extends CUfunction {
    MemorySegment segment() {
      return MemorySegment.ofAddress(getNativePointer());
    }
  }

  /** An instantiated graph handle. */
  static final class GraphExec extends CUgraphExec {
    MemorySegment segment() {
      return MemorySegment.ofAddress(getNativePointer());
    }
  }

  /** A device pointer from cuMemAlloc. */
  static final class DevicePointer extends CUdeviceptr {
    long address() {
      return getNativePointer() + getByteOffset();
    }
  }
}
