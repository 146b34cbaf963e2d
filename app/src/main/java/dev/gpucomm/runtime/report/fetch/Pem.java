package dev.gpucomm.runtime.report.fetch;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Certificates and private keys in the PEM text that kubeconfig files hold: X.509 certificates, and
 * keys as PKCS#8 ("PRIVATE KEY"), PKCS#1 ("RSA PRIVATE KEY", kubeadm's and kind's) or SEC1 ("EC
 * PRIVATE KEY").
 */
final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
  private static final byte[] RSA_ENCRYPTION_OID = {
    0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01
  };
  private static final byte[] EC_PUBLIC_KEY_OID = {
    0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01
  };
  private static final byte[] DER_NULL = {0x05, 0x00};
  private static final byte[] VERSION_ZERO = {0x02, 0x01, 0x00};

  private Pem() {}

  /** One PEM block: its label (CERTIFICATE, PRIVATE KEY, ...) and decoded bytes. */
  record Block(String label, byte[] der) {}

  static List<Block> blocks(String text) {
    List<Block> blocks = new ArrayList<>();
    Matcher matcher = BLOCK.matcher(text);
    while (matcher.find()) {
      blocks.add(
          new Block(
              matcher.group(1),
              Base64.getMimeDecoder().decode(matcher.group(2).replaceAll("\\s", ""))));
    }
    return blocks;
  }

  static List<X509Certificate> certificates(byte[] pem, String source) {
    List<X509Certificate> certificates = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (Block block : blocks(new String(pem, StandardCharsets.US_ASCII))) {
        if (block.label().equals("CERTIFICATE")) {
          certificates.add(
              (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
        }
      }
    } catch (CertificateException e) {
      throw new KubeConfigException(
          source + ": not a valid PEM certificate (" + e.getMessage() + ")");
    }
    if (certificates.isEmpty()) {
      throw new KubeConfigException(source + ": no PEM certificate in it");
    }
    return certificates;
  }

  static PrivateKey privateKey(byte[] pem, String source) {
    for (Block block : blocks(new String(pem, StandardCharsets.US_ASCII))) {
      try {
        switch (block.label()) {
          case "PRIVATE KEY" -> {
            return pkcs8(block.der());
          }
          case "RSA PRIVATE KEY" -> {
            return KeyFactory.getInstance("RSA")
                .generatePrivate(
                    new PKCS8EncodedKeySpec(
                        pkcs8Wrap(Der.sequence(RSA_ENCRYPTION_OID, DER_NULL), block.der())));
          }
          case "EC PRIVATE KEY" -> {
            byte[] curve = Der.sec1CurveOid(block.der());
            return KeyFactory.getInstance("EC")
                .generatePrivate(
                    new PKCS8EncodedKeySpec(
                        pkcs8Wrap(Der.sequence(EC_PUBLIC_KEY_OID, curve), block.der())));
          }
          default -> {
            // other blocks (certificates, EC PARAMETERS) are not the key
          }
        }
      } catch (GeneralSecurityException | IllegalArgumentException e) {
        throw new KubeConfigException(
            source + ": not a valid " + block.label() + " (" + e.getMessage() + ")");
      }
    }
    throw new KubeConfigException(
        source + ": no PEM private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY) in it");
  }

  private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    InvalidKeySpecException last = null;
    for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (InvalidKeySpecException e) {
        last = e;
      }
    }
    throw last;
  }

  /** PrivateKeyInfo ::= SEQUENCE { version 0, algorithm, privateKey OCTET STRING }. */
  private static byte[] pkcs8Wrap(byte[] algorithm, byte[] privateKey) {
    return Der.sequence(VERSION_ZERO, algorithm, Der.octetString(privateKey));
  }
}
