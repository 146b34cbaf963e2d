package dev.gpucomm.runtime.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The text made of what a rank saw of the fabric reads the same on every run. */
class FabricObservationTest {
  @Test
  void nicsAndPathsIterateInNameOrderWhateverOrderTheyWereSeenIn() {
    FabricObservation seen =
        new FabricObservation(
            List.of(
                new PeerConnection(0, 1, TransportClass.P2P, "P2P/CUMEM"),
                new PeerConnection(0, 2, TransportClass.SOCKET, "NET/Socket/0")),
            new LinkedHashSet<>(List.of("mlx5_3", "eth0", "mlx5_0")),
            new LinkedHashSet<>(List.of("PIX", "NVL")),
            "");

    assertThat(seen.nics()).containsExactly("eth0", "mlx5_0", "mlx5_3");
    assertThat(seen.intraNodePaths()).containsExactly("NVL", "PIX");
    assertThat(seen.summary())
        .isEqualTo("intra-node p2p (NVL,PIX); inter-node socket via eth0,mlx5_0,mlx5_3");
  }
}
