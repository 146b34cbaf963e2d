package dev.gpucomm.runtime.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RoundRobinTest {
  @ParameterizedTest(name = "{0} participants")
  @ValueSource(ints = {2, 3, 4, 7, 8, 33})
  void everyPairMeetsExactlyOnceAndNobodyHasTwoPartnersInARound(int participants) {
    RoundRobin schedule = new RoundRobin(participants);
    Set<String> met = new HashSet<>();
    for (int round = 0; round < schedule.rounds(); round++) {
      for (int p = 0; p < participants; p++) {
        int partner = schedule.partner(round, p);
        if (partner < 0) {
          continue;
        }
        assertThat(partner).isNotEqualTo(p);
        assertThat(schedule.partner(round, partner)).as("pairing is mutual").isEqualTo(p);
        if (p < partner) {
          assertThat(met.add(p + "-" + partner)).as("met once: %d-%d", p, partner).isTrue();
        }
      }
    }
    assertThat(met).hasSize(participants * (participants - 1) / 2);
    assertThat(schedule.rounds())
        .isEqualTo(participants % 2 == 0 ? participants - 1 : participants);
  }
}
