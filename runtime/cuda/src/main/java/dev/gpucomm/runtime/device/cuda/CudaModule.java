package dev.gpucomm.runtime.device.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/** A module loaded from PTX with cuModuleLoadData (the driver compiles it for the device). */
public final class CudaModule implements AutoCloseable {
  private final CudaDevice device;
  private final String name;
  private final CUmodule module;
  private final NativeHandle state;
  private final Map<String, CudaKernel> kernels = new HashMap<>();

  CudaModule(CudaDevice device, String name, byte[] ptx) {
    this.device = device;
    this.name = name;
    device.bind();
    this.module = new CUmodule();
    // The driver expects NUL-terminated PTX text.
    byte[] terminated = Arrays.copyOf(ptx, ptx.length + 1);
    device.check(
        JCudaDriver.cuModuleLoadData(module, terminated), "cuModuleLoadData(" + name + ")");
    this.state = new NativeHandle("cuda module " + name + " on device " + device.ordinal());
  }

  /** Reads a PTX file that the build packs under {@code ptx/} on the class path. */
  static byte[] readPtxResource(String resource) {
    try (InputStream in = CudaModule.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "PTX resource " + resource + " is missing from the class path");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read PTX resource " + resource, e);
    }
  }

  /** The kernel with this (extern "C") name; looked up once. */
  public synchronized CudaKernel kernel(String kernelName) {
    state.checkOpen();
    return kernels.computeIfAbsent(
        kernelName,
        n -> {
          device.bind();
          JCudaHandles.Function function = new JCudaHandles.Function();
          device.check(
              JCudaDriver.cuModuleGetFunction(function, module, n),
              "cuModuleGetFunction(" + name + ":" + n + ")");
          return new CudaKernel(device, n, function, state);
        });
  }

  @Override
  public void close() {
    if (state.markClosed()) {
      device.forget(this);
      device.bind();
      device.check(JCudaDriver.cuModuleUnload(module), "cuModuleUnload(" + name + ")");
    }
  }

  @Override
  public String toString() {
    return state.toString();
  }
}
