package dev.gpucomm.runtime.device.cuda;

/**
 * A peer rank's allocation mapped into this process with cuIpcOpenMemHandle; closing unmaps it. One
 * mapping per peer allocation (the device caches them by handle bytes).
 */
final class PeerMapping implements AutoCloseable {
  private final CudaDevice device;
  private final long base;
  private final NativeHandle state;

  PeerMapping(CudaDevice device, long base, String allocationKey) {
    this.device = device;
    this.base = base;
    this.state =
        new NativeHandle(
            "peer mapping "
                + allocationKey.substring(0, Math.min(16, allocationKey.length()))
                + "… on device "
                + device.ordinal());
  }

  long base() {
    state.checkOpen();
    return base;
  }

  NativeHandle state() {
    return state;
  }

  @Override
  public void close() {
    if (state.markClosed()) {
      device.bind();
      device.api().check(device.api().ipcClose(base), "cuIpcCloseMemHandle", device.ordinal());
    }
  }

  @Override
  public String toString() {
    return state.toString();
  }
}
