package dev.gpucomm.runtime.collective;

import dev.gpucomm.runtime.device.DeviceBuffer;

/**
 * The device buffers of a fused all-reduce: this rank's input and residual (tokens × hidden
 * elements), γ (hidden elements), the updated residual and the normalized output (tokens × hidden
 * elements of the element type, or bytes for FP8). {@code residualOut} must not be {@code
 * residualIn}: the unfused algorithms sum into it before they read the residual.
 */
public record FusedBuffers(
    DeviceBuffer input,
    DeviceBuffer residualIn,
    DeviceBuffer gamma,
    DeviceBuffer residualOut,
    DeviceBuffer output) {}
