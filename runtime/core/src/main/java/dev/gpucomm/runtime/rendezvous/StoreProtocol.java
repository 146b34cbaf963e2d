package dev.gpucomm.runtime.rendezvous;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The store's wire format: every message is a frame (int32 length, then that many bytes). A request
 * frame starts with an opcode byte, a response frame with a status byte; strings are modified UTF-8
 * ({@link DataOutputStream#writeUTF}), values are int32 length + bytes.
 */
final class StoreProtocol {
  /** A rank joins: int32 rank, int32 world size, then its run id (a UTF string; absent: none). */
  static final byte HELLO = 1;

  static final byte SET = 2;
  static final byte GET = 3;
  static final byte ADD = 4;
  static final byte BARRIER = 5;
  static final byte WATCH = 6;
  static final byte BYE = 7;

  /** A rank's heartbeat on its watch connection (int32 rank); answered by {@link #BEAT}. */
  static final byte HEARTBEAT = 8;

  /**
   * A rank that failed leaves with its reason (a UTF string), which the store gives the other ranks
   * in place of "disconnected".
   */
  static final byte FAIL = 9;

  static final byte OK = 0;
  static final byte TIMEOUT = 1;
  static final byte FAILED = 2;
  static final byte PEER_FAILED = 3;

  /** The store's echo of a heartbeat: not the watch's answer, only a sign that the store lives. */
  static final byte BEAT = 4;

  /** Larger frames are refused: nothing the runtime exchanges comes near this. */
  static final int MAX_FRAME_BYTES = 64 << 20;

  private StoreProtocol() {}

  /** Builds one frame's payload. */
  static final class Frame {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    private final DataOutputStream out = new DataOutputStream(bytes);

    Frame(byte head) {
      writeByte(head);
    }

    Frame writeByte(int value) {
      try {
        out.writeByte(value);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    Frame writeInt(int value) {
      try {
        out.writeInt(value);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    Frame writeLong(long value) {
      try {
        out.writeLong(value);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    Frame writeString(String value) {
      try {
        out.writeUTF(value);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    Frame writeBytes(byte[] value) {
      try {
        out.writeInt(value.length);
        out.write(value);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    void sendTo(OutputStream stream) throws IOException {
      byte[] payload = bytes.toByteArray();
      DataOutputStream framed = new DataOutputStream(stream);
      framed.writeInt(payload.length);
      framed.write(payload);
      framed.flush();
    }
  }

  /** Reads one frame; null at a clean end of stream before the frame started. */
  static DataInputStream readFrame(InputStream stream) throws IOException {
    DataInputStream in = new DataInputStream(stream);
    int first = in.read();
    if (first < 0) {
      return null;
    }
    int length = (first << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedShort());
    if (length < 1 || length > MAX_FRAME_BYTES) {
      throw new IOException("bad frame length " + length);
    }
    // read as it arrives rather than allocated up front: a header alone holds no 64 MiB
    byte[] payload = in.readNBytes(length);
    if (payload.length < length) {
      throw new EOFException("connection closed inside a frame");
    }
    return new DataInputStream(new ByteArrayInputStream(payload));
  }

  static byte[] readBytes(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > MAX_FRAME_BYTES) {
      throw new IOException("bad value length " + length);
    }
    byte[] value = in.readNBytes(length);
    if (value.length < length) {
      throw new EOFException("a value longer than its frame");
    }
    return value;
  }
}
