package dev.gpucomm.runtime.collective.cuda;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.device.cuda.CudaDevice;
import dev.gpucomm.runtime.device.cuda.CudaDriverApi;
import dev.gpucomm.runtime.device.cuda.CudaKernel;
import dev.gpucomm.runtime.device.cuda.KernelArguments;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The copy-engine all-gather and reduce-scatter: the copy engines push pieces of a call into the
 * peers' receive slots (to the first peer on the caller's stream, to each further peer on a stream
 * of its own, so that the pushes to different peers run side by side) while a drain stream copies
 * (or sums) the pieces that have landed, so the transfer of piece k + 1 overlaps the local work on
 * piece k.
 *
 * <p>Each sender's slot in a receiver's memory is cut into parts (as many as pieces of the largest
 * size fit, from {@link #MIN_PARTS} to {@link #MAX_PARTS}) that pieces use in turn. Two one-word
 * tokens per (sender, receiver, part) order them, raised and cleared by stream memory operations
 * rather than by a barrier kernel per piece: "in use", in the sender's memory, which the sender
 * sets before it pushes into the part and the receiver clears once it has read it; and "landed", in
 * the receiver's memory, which the sender sets after its push and the receiver clears before it
 * reads. Each token goes 0 to 1 and back within a call, so the words are at rest between calls and
 * CUDA-graph replays find them as capture left them. One start barrier per call (a one-block
 * kernel) keeps the slots apart from the kernel variant's, which uses the same memory.
 *
 * <p>Why push into a slot and copy out, rather than stage into the sender's own memory and let
 * receivers pull straight into their outputs: both move each byte once over NVLink and, at two
 * ranks, the same bytes through HBM (the extra local copy sits on the receiver instead of the
 * sender). From three ranks on, staging once and pulling would save HBM bytes (one staging copy per
 * sender instead of a copy-out per peer on every receiver), but the pull puts a local copy in front
 * of the first byte on the wire and has the engines read over NVLink; a reduce-scatter gains
 * nothing from it, as its sum reads the landed slots in place.
 */
final class CopyEngineGather implements AutoCloseable {
  /** The fewest and most parts of a sender's slot, which consecutive pieces take in turn. */
  static final int MIN_PARTS = 2;

  static final int MAX_PARTS = 16;

  /** A call is cut into at least this many pieces (unless they would be too small). */
  static final int PIECES_PER_CALL = 4;

  /** The smallest piece a call is cut into, so that small calls pay for few stream operations. */
  static final long MIN_PIECE_BYTES = 1L << 20;

  private static final int THREADS = 512;
  private static final int BARRIER_THREADS = 32;
  private static final int ALIGNMENT = 16;

  // Token rows (MAX_PARTS < the flag sets' MAX_BLOCKS rows): row 1 + part of flag set 1 ("landed",
  // column = sender) and of set 2 ("in use",
  // column = receiver); row 0 of set 1 belongs to the start barrier (gather.cu).
  private static final long FLAG_SET_BYTES = PeerMemoryLayout.FLAG_SET_BYTES;

  // Parameters of ce_sum: own shard, output, bytes, slots, slot stride, rank, world.
  private static final int SUM_OWN = 0;
  private static final int SUM_OUT = 1;
  private static final int SUM_BYTES = 2;
  private static final int SUM_SLOTS = 3;

  private final CudaDevice device;
  private final CudaDriverApi api;
  private final int rank;
  private final int world;
  private final long[] bases;
  private final long slotsOffset;
  private final long slotBytes;
  private final int parts;
  private final long partBytes;
  private final long largestPieceBytes;
  private final long landedOffset;
  private final long inUseOffset;
  private final int sumBlocks;
  private final CudaKernel startBarrier;
  private final KernelArguments startBarrierArgs;
  private final CudaKernel[] sum;
  private final KernelArguments[] sumArgs;
  // The drain stream first, then the pushes to the peer `step` places after this rank at index
  // step - 1, for step >= 2 (step 1 uses the caller's stream).
  private final ForkedStreams forked;
  private final Stream drain;

  CopyEngineGather(
      CudaDevice device,
      Arena arena,
      int rank,
      int world,
      long[] bases,
      PeerMemoryLayout layout,
      long slotBytes,
      long largestPieceBytes,
      CudaKernel startBarrier,
      KernelArguments startBarrierArgs,
      CudaKernel[] sum,
      int sumBlocks) {
    this.device = device;
    this.api = CudaDriverApi.get();
    this.rank = rank;
    this.world = world;
    this.bases = bases.clone();
    this.slotsOffset = layout.oneshotRecvOffset();
    this.slotBytes = slotBytes;
    this.parts = parts(slotBytes, largestPieceBytes);
    this.partBytes = Math.max(ALIGNMENT, slotBytes / parts / ALIGNMENT * ALIGNMENT);
    this.largestPieceBytes = Math.min(largestPieceBytes, partBytes);
    this.landedOffset = layout.twoshotFlagsOffset() + FLAG_SET_BYTES;
    this.inUseOffset = layout.twoshotFlagsOffset() + 2 * FLAG_SET_BYTES;
    this.sumBlocks = sumBlocks;
    this.startBarrier = startBarrier;
    this.startBarrierArgs = startBarrierArgs;
    this.sum = sum;
    this.sumArgs = new KernelArguments[sum.length];
    for (int i = 0; i < sum.length; i++) {
      sumArgs[i] =
          new KernelArguments(arena, 8, 8, 8, 8, 8, 4, 4)
              .setLong(4, slotBytes)
              .setInt(5, rank)
              .setInt(6, world);
    }
    this.forked =
        ForkedStreams.create(
            1 + Math.max(0, world - 2), device::createStream, device::createOrderingEvent);
    this.drain = forked.get(0);
  }

  /**
   * Blocks of the sum kernel: one per multiprocessor, or as many as the communicator may use where
   * it shares the GPU with other work.
   */
  static int sumBlocks(CudaCommunicatorSettings settings, int multiprocessors) {
    return Math.max(1, settings.blockLimit(multiprocessors));
  }

  /** Parts of a slot of {@code slotBytes}: as many pieces of the largest size as fit, clamped. */
  static int parts(long slotBytes, long largestPieceBytes) {
    long fit = slotBytes / largestPieceBytes;
    return (int) Math.max(MIN_PARTS, Math.min(MAX_PARTS, fit));
  }

  /**
   * Bytes of each piece of a call of {@code bytes} per rank, at most {@code largestPieceBytes}: a
   * quarter of the call, so that even a small call overlaps push and drain, but no less than {@link
   * #MIN_PIECE_BYTES} (or the whole call, if smaller); whole 16-byte vectors, as {@code bytes} and
   * {@code largestPieceBytes} are.
   */
  static long pieceBytes(long bytes, long largestPieceBytes) {
    long share = (bytes + PIECES_PER_CALL - 1) / PIECES_PER_CALL;
    long rounded = (share + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    return Math.min(largestPieceBytes, Math.max(Math.min(MIN_PIECE_BYTES, bytes), rounded));
  }

  /**
   * All-gather of {@code bytesPerRank} (a whole number of vectors) from {@code in} to {@code out}.
   */
  void allGather(long in, long out, long bytesPerRank, Stream stream) {
    try {
      begin(stream);
      // Our own bytes go first on the drain stream: it has less to do than the pushing streams.
      device.copyAddresses(out + rank * bytesPerRank, in, bytesPerRank, drain);
      long piece = pieceBytes(bytesPerRank, largestPieceBytes);
      int part = 0;
      for (long offset = 0; offset < bytesPerRank; offset += piece) {
        long length = Math.min(piece, bytesPerRank - offset);
        for (int step = 1; step < world; step++) {
          push((rank + step) % world, part, in + offset, length, pushStream(step, stream));
        }
        for (int step = 1; step < world; step++) {
          int sender = (rank + world - step) % world;
          awaitLanded(sender, part);
          device.copyAddresses(
              out + sender * bytesPerRank + offset, landed(sender, part), length, drain);
          release(sender, part);
        }
        part = (part + 1) % parts;
      }
      // The next call's barrier relies on the other streams having joined the caller's.
      forked.join(stream);
    } catch (RuntimeException e) {
      // Tokens this call raised stay raised, so the caller must not run another call; the joins
      // at least keep later work on its stream from running beside this call's.
      forked.joinAfter(e, stream);
      throw e;
    }
  }

  /**
   * Reduce-scatter of {@code bytesPerShard} (a whole number of vectors): {@code out} receives the
   * rank-order fp32 sum of shard {@code rank} of every rank's {@code in}.
   */
  void reduceScatter(long in, long out, long bytesPerShard, DType dtype, Stream stream) {
    try {
      begin(stream);
      KernelArguments args = sumArgs[dtype.ordinal()];
      long piece = pieceBytes(bytesPerShard, largestPieceBytes);
      int part = 0;
      for (long offset = 0; offset < bytesPerShard; offset += piece) {
        long length = Math.min(piece, bytesPerShard - offset);
        for (int step = 1; step < world; step++) {
          int peer = (rank + step) % world;
          push(peer, part, in + peer * bytesPerShard + offset, length, pushStream(step, stream));
        }
        for (int step = 1; step < world; step++) {
          awaitLanded((rank + world - step) % world, part);
        }
        args.setLong(SUM_OWN, in + rank * bytesPerShard + offset)
            .setLong(SUM_OUT, out + offset)
            .setLong(SUM_BYTES, length)
            .setLong(SUM_SLOTS, landed(0, part));
        sum[dtype.ordinal()].launch(sumBlocks, THREADS, drain, args);
        for (int step = 1; step < world; step++) {
          release((rank + world - step) % world, part);
        }
        part = (part + 1) % parts;
      }
      // The next call's barrier relies on the other streams having joined the caller's.
      forked.join(stream);
    } catch (RuntimeException e) {
      // Tokens this call raised stay raised, so the caller must not run another call; the joins
      // at least keep later work on its stream from running beside this call's.
      forked.joinAfter(e, stream);
      throw e;
    }
  }

  /** Meets the peers (they have finished the previous call) and forks the other streams. */
  private void begin(Stream stream) {
    device.bind();
    startBarrier.launch(1, BARRIER_THREADS, stream, startBarrierArgs);
    forked.fork(stream);
  }

  private Stream pushStream(int step, Stream stream) {
    return step == 1 ? stream : forked.get(step - 1);
  }

  /** On {@code stream}: wait until {@code peer} has read this part, then push into it. */
  private void push(int peer, int part, long from, long length, Stream stream) {
    MemorySegment raw = CudaDevice.rawStream(stream);
    long inUse = inUseWord(rank, peer, part);
    check(api.streamWaitValue32Equal(raw, inUse, 0), "cuStreamWaitValue32");
    check(api.streamWriteValue32(raw, inUse, 1), "cuStreamWriteValue32");
    check(api.copyAsync(slot(peer, rank) + part * partBytes, from, length, raw), "cuMemcpyAsync");
    // The write's memory barrier makes the pushed bytes visible to the peer before the token.
    check(api.streamWriteValue32(raw, landedWord(peer, rank, part), 1), "cuStreamWriteValue32");
  }

  /** On the drain stream: wait for {@code sender}'s piece in this part and take its token. */
  private void awaitLanded(int sender, int part) {
    MemorySegment raw = CudaDevice.rawStream(drain);
    long word = landedWord(rank, sender, part);
    check(api.streamWaitValue32Equal(raw, word, 1), "cuStreamWaitValue32");
    check(api.streamWriteValue32(raw, word, 0), "cuStreamWriteValue32");
  }

  /** On the drain stream, after this rank's last read of the part: hand it back to the sender. */
  private void release(int sender, int part) {
    check(
        api.streamWriteValue32(CudaDevice.rawStream(drain), inUseWord(sender, rank, part), 0),
        "cuStreamWriteValue32");
  }

  /** Where {@code sender}'s piece in {@code part} lands in this rank's memory. */
  private long landed(int sender, int part) {
    return slot(rank, sender) + part * partBytes;
  }

  private long slot(int owner, int sender) {
    return bases[owner] + slotsOffset + sender * slotBytes;
  }

  /** The "landed" token in {@code receiver}'s memory for {@code sender}'s piece in {@code part}. */
  private long landedWord(int receiver, int sender, int part) {
    return bases[receiver] + landedOffset + tokenIndex(part, sender) * Integer.BYTES;
  }

  /** The "in use" token in {@code sender}'s memory for its part at {@code receiver}. */
  private long inUseWord(int sender, int receiver, int part) {
    return bases[sender] + inUseOffset + tokenIndex(part, receiver) * Integer.BYTES;
  }

  private static long tokenIndex(int part, int column) {
    return (1L + part) * PeerMemoryLayout.MAX_RANKS + column;
  }

  private void check(int result, String call) {
    if (result != 0) {
      api.check(result, call, device.ordinal());
    }
  }

  /** Releases the streams and events after the last call has completed. */
  @Override
  public void close() {
    forked.close();
  }
}
