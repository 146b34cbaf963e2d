package dev.gpucomm.runtime.report.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class PemTest {
  /** A throwaway P-256 key as `openssl ecparam -genkey` writes it (SEC1, curve named). */
  private static final String SEC1_P256 =
      """
      -----BEGIN EC PRIVATE KEY-----
      MHcCAQEEIC/C/7Zt9ceNAxc2dK8GO+wCSpvR9M+u9sUmNnlF5qkooAoGCCqGSM49
      AwEHoUQDQgAE+mP7bGdUO0KqxG4RQ1XaNEevxCKhkMPA+I5Sgeam49Lq1F7bp4bo
      OFC6QFBo5fxmGdAPR21FGJrSv5gX1AdoxA==
      -----END EC PRIVATE KEY-----
      """;

  private static final BigInteger SEC1_P256_SCALAR =
      new BigInteger("2fc2ffb66df5c78d03173674af063bec024a9bd1f4cfaef6c526367945e6a928", 16);

  @Test
  void readsAnRsaKeyInPkcs8AndInPkcs1AsKubeadmWritesIt() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    PrivateKey key = generator.generateKeyPair().getPrivate();
    byte[] pkcs8 = key.getEncoded();

    PrivateKey fromPkcs8 = Pem.privateKey(pem("PRIVATE KEY", pkcs8), "test");
    PrivateKey fromPkcs1 = Pem.privateKey(pem("RSA PRIVATE KEY", innerKey(pkcs8)), "test");

    assertThat(fromPkcs8.getEncoded()).isEqualTo(pkcs8);
    assertThat(fromPkcs1.getEncoded()).isEqualTo(pkcs8);
  }

  @Test
  void readsAnEcKeyInSec1WithItsNamedCurve() {
    PrivateKey key = Pem.privateKey(SEC1_P256.getBytes(StandardCharsets.US_ASCII), "test");

    assertThat(key).isInstanceOf(ECPrivateKey.class);
    assertThat(((ECPrivateKey) key).getS()).isEqualTo(SEC1_P256_SCALAR);
  }

  @Test
  void namesTheSourceWhenThereIsNoKey() {
    assertThatThrownBy(() -> Pem.privateKey("no pem here".getBytes(), "kubeconfig: client key"))
        .isInstanceOf(KubeConfigException.class)
        .hasMessageStartingWith("kubeconfig: client key: no PEM private key");
    assertThatThrownBy(() -> Pem.certificates("".getBytes(), "kubeconfig: certificate authority"))
        .hasMessage("kubeconfig: certificate authority: no PEM certificate in it");
  }

  private static byte[] pem(String label, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der);
    return ("-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** The PKCS#1 RSAPrivateKey inside a PKCS#8 PrivateKeyInfo: its trailing OCTET STRING. */
  private static byte[] innerKey(byte[] pkcs8) {
    // PrivateKeyInfo = 30 len { 02 01 00 | 30 0d <rsaEncryption, NULL> | 04 len <key> }
    int at = 1 + lengthBytes(pkcs8, 1); // past the outer header
    at += 3; // version
    at += 2 + pkcs8[at + 1]; // algorithm identifier (short form length)
    int octetLength = lengthBytes(pkcs8, at + 1);
    int contentStart = at + 1 + octetLength;
    return Arrays.copyOfRange(pkcs8, contentStart, pkcs8.length);
  }

  /** The number of bytes a DER length at that offset takes. */
  private static int lengthBytes(byte[] der, int offset) {
    int first = der[offset] & 0xff;
    return first < 0x80 ? 1 : 1 + (first & 0x7f);
  }
}
