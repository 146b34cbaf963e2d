package dev.gpucomm.runtime.collective.cpu;

import java.lang.foreign.MemorySegment;

/**
 * Paired send/receive over {@link MessageChannels}, and the collective permute built from it: at
 * step i rank r receives chunk (i + r) mod d from that rank and sends its own chunk to rank (d + r
 * − i) mod d; step 0 is a local copy, so a permute makes exactly d − 1 send/receive pairs.
 */
final class PointToPoint {
  private final int rank;
  private final int worldSize;
  private final MessageChannels channels;
  private volatile long pairs;

  PointToPoint(int rank, int worldSize, MessageChannels channels) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.channels = channels;
  }

  /** Send/receive pairs completed so far (written only by the stream that runs collectives). */
  long pairs() {
    return pairs;
  }

  /**
   * Sends {@code bytes} bytes of {@code send} to {@code to} while receiving as many from {@code
   * from}, piece by piece; both peers are this rank for a local copy.
   */
  void sendReceive(
      String operation,
      MemorySegment send,
      long sendOffset,
      int to,
      MemorySegment receive,
      long receiveOffset,
      int from,
      long bytes) {
    if (to == rank) {
      MemorySegment.copy(send, sendOffset, receive, receiveOffset, bytes);
      return;
    }
    long pieceBytes = channels.slotBytes();
    for (long pieceStart = 0; pieceStart < bytes; pieceStart += pieceBytes) {
      long length = Math.min(pieceBytes, bytes - pieceStart);
      MemorySegment outgoing = channels.acquireSendSlot(to, operation);
      MemorySegment.copy(send, sendOffset + pieceStart, outgoing, 0, length);
      channels.publish(to, length, operation);
      MemorySegment incoming = channels.awaitMessage(from, operation);
      MemorySegment.copy(incoming, 0, receive, receiveOffset + pieceStart, length);
      channels.release(from);
    }
    channels.drain(to, operation);
    pairs++;
  }

  void collectivePermute(
      String operation, MemorySegment input, MemorySegment output, long bytesPerRank) {
    MemorySegment.copy(input, 0, output, rank * bytesPerRank, bytesPerRank);
    for (int step = 1; step < worldSize; step++) {
      int from = (step + rank) % worldSize;
      int to = (worldSize + rank - step) % worldSize;
      sendReceive(operation, input, 0, to, output, from * bytesPerRank, from, bytesPerRank);
    }
  }
}
