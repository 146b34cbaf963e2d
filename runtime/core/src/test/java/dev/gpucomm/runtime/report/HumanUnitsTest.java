package dev.gpucomm.runtime.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HumanUnitsTest {
  @Test
  void sizesInBinaryUnits() {
    assertThat(HumanUnits.shortBytes(512)).isEqualTo("512 B");
    assertThat(HumanUnits.shortBytes(512 * 1024)).isEqualTo("512 KB");
    assertThat(HumanUnits.shortBytes(64L << 20)).isEqualTo("64 MB");
    assertThat(HumanUnits.binaryBytes(1_482_910)).isEqualTo("1.41 MiB");
    assertThat(HumanUnits.binaryBytes(3L << 30)).isEqualTo("3 GiB");
    assertThat(HumanUnits.megabytesTwoDecimals(3062 * 8192 * 2)).isEqualTo("47.84 MB");
  }

  @Test
  void latenciesInMicrosAndMillis() {
    assertThat(HumanUnits.micros(8.8)).isEqualTo("8.8 µs");
    assertThat(HumanUnits.micros(2.125)).isEqualTo("2.13 µs");
    assertThat(HumanUnits.micros(19.44)).isEqualTo("19.4 µs");
    assertThat(HumanUnits.micros(1000)).isEqualTo("1 ms");
    assertThat(HumanUnits.micros(1250)).isEqualTo("1.25 ms");
    assertThat(HumanUnits.micros(2_500_000)).isEqualTo("2.5 s");
  }

  @Test
  void numbersWithoutNoise() {
    assertThat(HumanUnits.trimmed(64.0, 3)).isEqualTo("64");
    assertThat(HumanUnits.trimmed(1e9, 3)).isEqualTo("1000000000");
    assertThat(HumanUnits.atLeastOneDecimal(32, 3)).isEqualTo("32.0");
    assertThat(HumanUnits.atLeastOneDecimal(64.125, 3)).isEqualTo("64.125");
    assertThat(HumanUnits.fixed(1.865168, 2)).isEqualTo("1.87");
  }

  @Test
  void aCountOfOneTakesTheSingular() {
    assertThat(HumanUnits.count(1, "rank")).isEqualTo("1 rank");
    assertThat(HumanUnits.count(0, "rank")).isEqualTo("0 ranks");
    assertThat(HumanUnits.count(8, "GPU")).isEqualTo("8 GPUs");
  }
}
