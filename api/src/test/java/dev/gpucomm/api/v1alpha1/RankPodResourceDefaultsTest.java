package dev.gpucomm.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

/** The requests and memory limit a rank pod gets when its template names none. */
class RankPodResourceDefaultsTest {

  @Test
  void anEightGpuPodRequestsTwoCoresAndFourGibibytesPerRank() {
    assertThat(CommJobDefaults.rankPodCpuRequest(8, CommJobDefaults.CPU_PER_RANK))
        .isEqualTo(new Quantity("16"));
    assertThat(CommJobDefaults.rankPodMemoryRequest(8, CommJobDefaults.MEMORY_PER_RANK))
        .isEqualTo(new Quantity("32Gi"));
  }

  @Test
  void theMemoryLimitLeavesRoomForTheMemoryBackedSharedMemory() {
    Quantity request = CommJobDefaults.rankPodMemoryRequest(8, "4Gi");
    assertThat(CommJobDefaults.rankPodMemoryLimit(request, "8Gi")).isEqualTo(new Quantity("40Gi"));
    assertThat(CommJobDefaults.rankPodMemoryLimit(new Quantity("1536Mi"), "512Mi"))
        .isEqualTo(new Quantity("2Gi"));
  }

  @Test
  void fractionsOfACorePerRankAddUpInMillicores() {
    assertThat(CommJobDefaults.rankPodCpuRequest(3, "500m")).isEqualTo(new Quantity("1500m"));
    assertThat(CommJobDefaults.rankPodCpuRequest(4, "500m")).isEqualTo(new Quantity("2"));
  }
}
