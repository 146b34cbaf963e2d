package dev.gpucomm.runtime.report.fetch;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/** Builds a self-signed X.509 v3 certificate in DER, so that TLS tests need no keytool process. */
final class SelfSignedCertificate {
  private static final byte[] ECDSA_WITH_SHA256 = {
    0x30, 0x0a, 0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x04, 0x03, 0x02
  };
  private static final byte[] SHA256_WITH_RSA = {
    0x30,
    0x0d,
    0x06,
    0x09,
    0x2a,
    (byte) 0x86,
    0x48,
    (byte) 0x86,
    (byte) 0xf7,
    0x0d,
    0x01,
    0x01,
    0x0b,
    0x05,
    0x00
  };
  private static final byte[] COMMON_NAME_OID = {0x06, 0x03, 0x55, 0x04, 0x03};
  private static final byte[] SUBJECT_ALT_NAME_OID = {0x06, 0x03, 0x55, 0x1d, 0x11};
  private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");

  private SelfSignedCertificate() {}

  /** A certificate for {@code commonName}, valid for a day, naming 127.0.0.1 as its address. */
  static X509Certificate create(KeyPair keys, String commonName) throws Exception {
    boolean ec = keys.getPublic().getAlgorithm().equals("EC");
    byte[] algorithm = ec ? ECDSA_WITH_SHA256 : SHA256_WITH_RSA;
    byte[] name =
        sequence(
            set(sequence(COMMON_NAME_OID, tlv(0x0c, commonName.getBytes(StandardCharsets.UTF_8)))));
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    byte[] validity =
        sequence(
            tlv(0x17, UTC_TIME.format(now.minusHours(1)).getBytes(StandardCharsets.US_ASCII)),
            tlv(0x17, UTC_TIME.format(now.plusDays(1)).getBytes(StandardCharsets.US_ASCII)));
    byte[] loopback = tlv(0x87, new byte[] {127, 0, 0, 1}); // iPAddress [7]
    byte[] extensions =
        tlv(0xa3, sequence(sequence(SUBJECT_ALT_NAME_OID, tlv(0x04, sequence(loopback)))));
    byte[] tbs =
        sequence(
            tlv(0xa0, new byte[] {0x02, 0x01, 0x02}), // version v3
            tlv(0x02, BigInteger.valueOf(System.nanoTime()).abs().toByteArray()),
            algorithm,
            name,
            validity,
            name,
            keys.getPublic().getEncoded(),
            extensions);
    Signature signer = Signature.getInstance(ec ? "SHA256withECDSA" : "SHA256withRSA");
    signer.initSign(keys.getPrivate());
    signer.update(tbs);
    byte[] signature = signer.sign();
    byte[] bitString = new byte[signature.length + 1]; // leading 0: no unused bits
    System.arraycopy(signature, 0, bitString, 1, signature.length);
    byte[] certificate = sequence(tbs, algorithm, tlv(0x03, bitString));
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(certificate));
  }

  private static byte[] sequence(byte[]... elements) {
    return tlv(0x30, concat(elements));
  }

  private static byte[] set(byte[]... elements) {
    return tlv(0x31, concat(elements));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    if (content.length < 0x80) {
      out.write(content.length);
    } else if (content.length < 0x100) {
      out.write(0x81);
      out.write(content.length);
    } else {
      out.write(0x82);
      out.write(content.length >>> 8);
      out.write(content.length);
    }
    out.writeBytes(content);
    return out.toByteArray();
  }
}
