package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class ByteSizeConverterTest {
  private final ByteSizeConverter converter = new ByteSizeConverter();

  @Test
  void acceptsBytesAndBinaryUnitsSpelledAnyOfTheUsualWays() {
    assertThat(converter.convert("4096")).isEqualTo(4096L);
    assertThat(converter.convert("64B")).isEqualTo(64L);
    assertThat(converter.convert("64K")).isEqualTo(64L << 10);
    assertThat(converter.convert("64KB")).isEqualTo(64L << 10);
    assertThat(converter.convert("64KiB")).isEqualTo(64L << 10);
    assertThat(converter.convert(" 1m ")).isEqualTo(1L << 20);
    assertThat(converter.convert("8GiB")).isEqualTo(8L << 30);
  }

  @Test
  void aUnitSpellingInsideTheNumberIsNotASize() {
    for (String text : new String[] {"3B2", "IBIB16KIB", "16IB", "1B6", "KB", "", "8GG"}) {
      assertThatThrownBy(() -> converter.convert(text))
          .as(text)
          .isInstanceOf(TypeConversionException.class)
          .hasMessage("'" + text.strip() + "' is not a size (e.g. 4096, 64K, 1M)");
    }
  }
}
