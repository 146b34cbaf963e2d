package dev.gpucomm.runtime.report.fetch;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/** The few DER encodings and the one parse that turning PKCS#1 and SEC1 keys into PKCS#8 needs. */
final class Der {
  private static final int SEQUENCE = 0x30;
  private static final int OCTET_STRING = 0x04;
  private static final int OBJECT_IDENTIFIER = 0x06;
  private static final int CONTEXT_0 = 0xa0;

  private Der() {}

  static byte[] sequence(byte[]... encodedElements) {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    for (byte[] element : encodedElements) {
      content.writeBytes(element);
    }
    return tagged(SEQUENCE, content.toByteArray());
  }

  static byte[] octetString(byte[] content) {
    return tagged(OCTET_STRING, content);
  }

  private static byte[] tagged(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }

  /**
   * The named-curve OID (encoded, tag included) of a SEC1 ECPrivateKey: SEQUENCE { version,
   * privateKey OCTET STRING, [0] parameters, [1] publicKey }.
   */
  static byte[] sec1CurveOid(byte[] sec1) {
    Reader outer = new Reader(sec1, 0, sec1.length);
    Reader key = outer.enter(SEQUENCE);
    key.skip(); // version
    key.skip(); // privateKey
    while (key.hasMore()) {
      int tag = key.peekTag();
      if (tag == CONTEXT_0) {
        Reader parameters = key.enter(CONTEXT_0);
        return parameters.raw(OBJECT_IDENTIFIER);
      }
      key.skip();
    }
    throw new IllegalArgumentException("EC key without a named curve");
  }

  /** Reads TLV elements within one range of a DER encoding. */
  private static final class Reader {
    private final byte[] der;
    private int position;
    private final int end;

    Reader(byte[] der, int position, int end) {
      this.der = der;
      this.position = position;
      this.end = end;
    }

    boolean hasMore() {
      return position < end;
    }

    int peekTag() {
      return der[position] & 0xff;
    }

    Reader enter(int tag) {
      int[] header = header(tag);
      position = header[0] + header[1];
      return new Reader(der, header[0], header[0] + header[1]);
    }

    byte[] raw(int tag) {
      int start = position;
      int[] header = header(tag);
      position = header[0] + header[1];
      return Arrays.copyOfRange(der, start, position);
    }

    void skip() {
      int[] header = header(peekTag());
      position = header[0] + header[1];
    }

    /** Returns {content start, content length} of the element at the position. */
    private int[] header(int tag) {
      if (position >= end || (der[position] & 0xff) != tag) {
        throw new IllegalArgumentException("malformed DER at byte " + position);
      }
      int at = position + 1;
      int length = der[at++] & 0xff;
      if (length >= 0x80) {
        int bytes = length & 0x7f;
        if (bytes == 0 || bytes > 4) {
          throw new IllegalArgumentException("unsupported DER length at byte " + position);
        }
        length = 0;
        for (int i = 0; i < bytes; i++) {
          length = (length << 8) | (der[at++] & 0xff);
        }
      }
      if (at + length > end) {
        throw new IllegalArgumentException("truncated DER at byte " + position);
      }
      return new int[] {at, length};
    }
  }
}
