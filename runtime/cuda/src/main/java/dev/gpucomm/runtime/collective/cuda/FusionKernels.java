package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.FusedBuffers;
import dev.gpucomm.runtime.collective.NormEpilogue;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaKernel;
import dev.gpucomm.runtime.device.cuda.CudaModule;
import dev.gpucomm.runtime.device.cuda.KernelArguments;
import java.lang.foreign.Arena;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The residual-add + RMSNorm kernel of {@code fusion.cu} that runs after an NCCL all-reduce (the
 * unfused baseline of the fused patterns), with its parameter block laid out once per element type
 * so that a launch allocates nothing and can be captured in a CUDA graph.
 */
final class FusionKernels implements AutoCloseable {
  static final String PTX_RESOURCE = "ptx/fusion.ptx";

  /**
   * The PTX of the fused all-reduce kernels built for this world size (rank loops unrolled, fewer
   * registers live across a wait), else the generic one, which takes the world at run time.
   */
  static String ptxResource(int world) {
    return world == 2 || world == 4 || world == 8 ? "ptx/fusion-w" + world + ".ptx" : PTX_RESOURCE;
  }

  static final int MAX_BLOCKS = 132;
  static final int MAX_THREADS = 512;

  /** fusion.cu's SPREAD_ROW_VECTORS: the vectors of a row one thread holds in registers. */
  static final int SPREAD_ROW_VECTORS = 4;

  /**
   * fusion.cu's RowCall: five pointers, tokens, then five 32-bit fields packed in three words (the
   * last padded).
   */
  static final long ROW_CALL_BYTES = 72;

  private static final int ROW_CALL = 0;
  private static final int INPUT = 0;
  private static final int RESIDUAL_IN = 1;
  private static final int GAMMA = 2;
  private static final int RESIDUAL_OUT = 3;
  private static final int OUTPUT = 4;
  private static final int TOKENS = 5;
  private static final int HIDDEN_AND_EPSILON = 6;
  private static final int SCALE_AND_ACCUMULATE = 7;
  private static final int ROW_COPIES = 8;

  private final Arena arena = Arena.ofShared();
  private final CudaKernel[] addRmsNorm = new CudaKernel[DType.values().length];
  private final KernelArguments[] arguments = new KernelArguments[DType.values().length];
  private final AtomicBoolean closed = new AtomicBoolean();

  FusionKernels(CudaDevice device) {
    CudaModule module = device.module(PTX_RESOURCE);
    for (DType dtype : DType.values()) {
      addRmsNorm[dtype.ordinal()] = module.kernel("add_rmsnorm_" + dtype.wireName());
      arguments[dtype.ordinal()] = new KernelArguments(arena, ROW_CALL_BYTES);
    }
  }

  /**
   * The epilogue alone: {@code residualOut} holds the all-reduced sum and becomes sum + residualIn;
   * the output gets the normalized rows. Rows must be whole 16-byte vectors.
   */
  void addRmsNorm(
      FusedBuffers buffers, long tokens, DType dtype, NormEpilogue epilogue, Stream stream) {
    if (closed.get()) {
      throw new IllegalStateException("the fusion kernels are closed");
    }
    if ((long) epilogue.hiddenSize() * dtype.bytes() % 16 != 0) {
      throw new IllegalArgumentException(
          "hiddenSize %d of %s is not a whole number of 16-byte vectors, which the kernels need"
              .formatted(epilogue.hiddenSize(), dtype.wireName()));
    }
    KernelArguments args = arguments[dtype.ordinal()];
    writeRowCall(args, ROW_CALL, buffers, tokens, epilogue, 1);
    addRmsNorm[dtype.ordinal()].launch(
        blocks(tokens), threads(epilogue.hiddenSize(), dtype), stream, args);
  }

  /**
   * Writes fusion.cu's RowCall of one call into parameter {@code index} of {@code args}; {@code
   * rowCopies} only counts for fused_lamport_spread ({@link FusedRowCopies}).
   */
  static void writeRowCall(
      KernelArguments args,
      int index,
      FusedBuffers buffers,
      long tokens,
      NormEpilogue epilogue,
      int rowCopies) {
    args.setStructLong(index, INPUT, buffers.input().address())
        .setStructLong(index, RESIDUAL_IN, buffers.residualIn().address())
        .setStructLong(index, GAMMA, buffers.gamma().address())
        .setStructLong(index, RESIDUAL_OUT, buffers.residualOut().address())
        .setStructLong(index, OUTPUT, buffers.output().address())
        .setStructLong(index, TOKENS, tokens)
        .setStructLong(
            index,
            HIDDEN_AND_EPSILON,
            packed(epilogue.hiddenSize(), Float.floatToRawIntBits(epilogue.epsilon())))
        .setStructLong(
            index,
            SCALE_AND_ACCUMULATE,
            packed(
                Float.floatToRawIntBits(
                    epilogue.pattern().quantizesToFp8() ? epilogue.fp8Scale() : 0f),
                epilogue.fp32Accumulate() ? 1 : 0))
        .setStructLong(index, ROW_COPIES, packed(rowCopies, 0));
  }

  /** One block per row up to the SM count; rows beyond it loop over the same blocks. */
  static int blocks(long tokens) {
    return (int) Math.max(1, Math.min(MAX_BLOCKS, tokens));
  }

  /** One thread per 16-byte vector of a row, in whole warps, at most {@value #MAX_THREADS}. */
  static int threads(int hiddenSize, DType dtype) {
    long vectors = (long) hiddenSize * dtype.bytes() / 16;
    return (int) Math.max(32, Math.min(MAX_THREADS, (vectors + 31) / 32 * 32));
  }

  /**
   * Two 32-bit fields of a struct in one little-endian 8-byte word, the first at the lower address.
   */
  private static long packed(int first, int second) {
    return (first & 0xffff_ffffL) | ((long) second << 32);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      arena.close();
    }
  }
}
