package dev.gpucomm.runtime.device.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class KernelArgumentsTest {
  @Test
  void eachPointerOfTheArrayAddressesItsAlignedValue() {
    try (Arena arena = Arena.ofConfined()) {
      // (const char* input, long long bytes, int rank, struct {char* base[8]} peers, int world)
      KernelArguments args = new KernelArguments(arena, 8, 8, 4, 64, 4);
      args.setLong(0, 0x7f00_0000_1000L).setLong(1, 4096).setInt(2, 3).setInt(4, 4);
      args.setStructLong(3, 7, 0xdeadbeefL);

      MemorySegment pointers = args.pointers();
      assertThat(read(pointers, 0, 8).get(JAVA_LONG, 0)).isEqualTo(0x7f00_0000_1000L);
      assertThat(read(pointers, 1, 8).get(JAVA_LONG, 0)).isEqualTo(4096);
      assertThat(read(pointers, 2, 4).get(JAVA_INT, 0)).isEqualTo(3);
      assertThat(read(pointers, 3, 64).get(JAVA_LONG, 56)).isEqualTo(0xdeadbeefL);
      assertThat(read(pointers, 4, 4).get(JAVA_INT, 0)).isEqualTo(4);
      assertThat(pointers.getAtIndex(ADDRESS, 3).address() % 8).isZero();
    }
  }

  @Test
  void refusesAValueOfTheWrongWidth() {
    try (Arena arena = Arena.ofConfined()) {
      KernelArguments args = new KernelArguments(arena, 8, 4);

      assertThatThrownBy(() -> args.setInt(0, 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("parameter 0 has 8 bytes, not 4");
      assertThatThrownBy(() -> args.setStructLong(1, 1, 0))
          .isInstanceOf(IndexOutOfBoundsException.class);
    }
  }

  private static MemorySegment read(MemorySegment pointers, int index, long bytes) {
    return pointers.getAtIndex(ADDRESS, index).reinterpret(bytes);
  }
}
