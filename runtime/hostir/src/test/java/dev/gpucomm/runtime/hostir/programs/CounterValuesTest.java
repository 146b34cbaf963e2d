package dev.gpucomm.runtime.hostir.programs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.numeric.ElementCodec;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CounterValuesTest {
  @Test
  void valuesAreExactInTheirTypeAndSpreadOverMinusOneToOne() {
    for (DType dtype : DType.values()) {
      CounterValues values = new CounterValues(7, dtype);
      ElementCodec codec = ElementCodec.of(dtype);
      Set<Float> distinct = new HashSet<>();
      double sum = 0;
      int count = 20_000;
      for (int index = 0; index < count; index++) {
        float value = values.at(3, index);
        assertThat(value).isGreaterThanOrEqualTo(-1f).isLessThan(1f);
        assertThat(codec.round(value)).isEqualTo(value);
        distinct.add(value);
        sum += value;
      }
      assertThat(distinct).as(dtype + " distinct values").hasSizeGreaterThan(200);
      assertThat(Math.abs(sum / count)).as(dtype + " mean").isLessThan(0.03);
    }
  }

  @Test
  void anyElementCanBeRecomputedFromItsAddressAlone() {
    CounterValues values = new CounterValues(11, DType.BF16);

    assertThat(values.at(2, 123_456_789L)).isEqualTo(values.at(2, 123_456_789L));
    assertThat(values.at(2, 5)).isNotEqualTo(values.at(3, 5));
  }
}
