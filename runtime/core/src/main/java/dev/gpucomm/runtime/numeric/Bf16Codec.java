package dev.gpucomm.runtime.numeric;

import dev.gpucomm.api.v1alpha1.DType;
import java.lang.foreign.MemorySegment;

/**
 * bf16 elements; the bulk methods take the vectorized paths of {@link Bf16Blocks}, the block
 * methods those of {@link Bf16VectorBlocks} where the Vector API is in use (same results).
 */
final class Bf16Codec extends TwoByteCodec {
  static final Bf16Codec INSTANCE = new Bf16Codec();

  private Bf16Codec() {
    super(DType.BF16, 0x1p-8, 0x1p-134);
  }

  @Override
  float toFloat(short bits) {
    return Bf16.toFloat(bits);
  }

  @Override
  short fromFloat(float value) {
    return Bf16.fromFloat(value);
  }

  @Override
  public void load(
      MemorySegment source, long sourceIndex, float[] destination, int offset, int length) {
    if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.load(source, sourceIndex, destination, offset, length);
    } else {
      super.load(source, sourceIndex, destination, offset, length);
    }
  }

  @Override
  public void accumulate(
      MemorySegment source, long sourceIndex, float[] sums, int offset, int length) {
    if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.accumulate(source, sourceIndex, sums, offset, length);
    } else {
      super.accumulate(source, sourceIndex, sums, offset, length);
    }
  }

  @Override
  public void store(
      float[] values, int offset, MemorySegment destination, long destinationIndex, int length) {
    if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.store(values, offset, destination, destinationIndex, length);
    } else {
      super.store(values, offset, destination, destinationIndex, length);
    }
  }

  /** Block order: the even elements of the block, then the odd ones (see {@link Bf16Blocks}). */
  @Override
  public void loadBlock(MemorySegment source, long sourceIndex, BlockSums sums, int length) {
    if (VectorUnits.IN_USE) {
      Bf16VectorBlocks.loadSplit(source, sourceIndex, sums, length);
    } else if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.loadSplit(source, sourceIndex, sums, length);
    } else {
      super.loadBlock(source, sourceIndex, sums, length);
    }
  }

  @Override
  public void accumulateBlock(MemorySegment source, long sourceIndex, BlockSums sums, int length) {
    if (VectorUnits.IN_USE) {
      Bf16VectorBlocks.accumulateSplit(source, sourceIndex, sums, length);
    } else if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.accumulateSplit(source, sourceIndex, sums, length);
    } else {
      super.accumulateBlock(source, sourceIndex, sums, length);
    }
  }

  @Override
  public void storeBlock(
      BlockSums sums, MemorySegment destination, long destinationIndex, int length) {
    if (VectorUnits.IN_USE) {
      Bf16VectorBlocks.storeSplit(sums, destination, destinationIndex, length);
    } else if (Bf16Blocks.SUPPORTED) {
      Bf16Blocks.storeSplit(sums, destination, destinationIndex, length);
    } else {
      super.storeBlock(sums, destination, destinationIndex, length);
    }
  }

  @Override
  public void sumInto(
      MemorySegment[] terms,
      long[] termIndices,
      int termCount,
      MemorySegment destination,
      long destinationIndex,
      int length,
      BlockSums scratch) {
    if (VectorUnits.IN_USE) {
      Bf16VectorBlocks.sumInto(
          terms, termIndices, termCount, destination, destinationIndex, length);
    } else {
      super.sumInto(terms, termIndices, termCount, destination, destinationIndex, length, scratch);
    }
  }
}
