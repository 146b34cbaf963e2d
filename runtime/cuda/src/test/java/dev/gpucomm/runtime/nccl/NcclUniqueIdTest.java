package dev.gpucomm.runtime.nccl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class NcclUniqueIdTest {
  @Test
  void holdsExactly128BytesAndCopiesThem() {
    byte[] bytes = new byte[128];
    new Random(7).nextBytes(bytes);
    NcclUniqueId id = new NcclUniqueId(bytes);
    bytes[0] ^= 1;

    assertThat(id.bytes()).hasSize(128).isNotEqualTo(bytes);
    assertThat(id).isEqualTo(new NcclUniqueId(id.bytes()));
  }

  @Test
  void refusesAnIdOfTheWrongSize() {
    assertThatThrownBy(() -> new NcclUniqueId(new byte[64]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("128 bytes, got 64");
  }

  @Test
  void errorMessagesCarryNcclsOwnWords() {
    NcclException e =
        new NcclException("ncclCommInitRank", 5, "invalid usage", "Duplicate GPU detected\n");

    assertThat(e.getMessage())
        .isEqualTo("ncclCommInitRank failed: invalid usage (ncclResult 5): Duplicate GPU detected");
  }
}
