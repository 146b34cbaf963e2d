package dev.gpucomm.runtime.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.InterNodeTransport;
import dev.gpucomm.api.v1alpha1.IntraNodeTransport;
import dev.gpucomm.api.v1alpha1.NetworkExpectation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** spec.network.expect held against what NCCL chose, connection by connection. */
class TransportCheckTest {
  private static final List<String> ONE_HOST = List.of("node-a", "node-a");
  private static final List<String> TWO_HOSTS = List.of("node-a", "node-b");

  @Test
  void nvlinkBetweenGpusOfOneHostMeetsAnNvlinkExpectation() {
    FabricObservation seen =
        seen(
            "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 40/40, type NVL/PIX",
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM");
    assertThat(TransportCheck.violation(intra(IntraNodeTransport.NVLINK), seen, 0, ONE_HOST))
        .isEmpty();
  }

  @Test
  void socketsBetweenGpusOfOneHostBreakAnNvlinkExpectationNamingTheRank() {
    FabricObservation seen =
        seen("h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/Socket/0");
    assertThat(TransportCheck.violation(intra(IntraNodeTransport.NVLINK), seen, 1, ONE_HOST))
        .contains(
            "rank 1: spec.network.expect.intraNode is nvlink, but NCCL connected ranks 1 and 0"
                + " (same host) via NET/Socket/0");
  }

  @Test
  void peerToPeerOverPcieIsNotNvlink() {
    FabricObservation seen =
        seen(
            "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 20/20, type PIX/PIX",
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM");
    assertThat(TransportCheck.violation(intra(IntraNodeTransport.NVLINK), seen, 0, ONE_HOST))
        .isPresent();
    assertThat(TransportCheck.violation(intra(IntraNodeTransport.P2P), seen, 0, ONE_HOST))
        .isEmpty();
  }

  @Test
  void socketsBetweenNodesBreakAnInfinibandExpectationAndMeetASocketOne() {
    FabricObservation seen =
        seen("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0");
    assertThat(TransportCheck.violation(inter(InterNodeTransport.IB), seen, 0, TWO_HOSTS))
        .hasValueSatisfying(message -> assertThat(message).contains("interNode is ib"));
    assertThat(TransportCheck.violation(inter(InterNodeTransport.SOCKET), seen, 0, TWO_HOSTS))
        .isEmpty();
  }

  @Test
  void anExpectationThatCannotBeCheckedFailsRatherThanPasses() {
    FabricObservation unknown = FabricObservation.unknown("NCCL_DEBUG is set by the user");
    assertThat(TransportCheck.violation(inter(InterNodeTransport.IB), unknown, 0, TWO_HOSTS))
        .hasValueSatisfying(message -> assertThat(message).contains("cannot be checked"));
    assertThat(TransportCheck.violation(new NetworkExpectation(), unknown, 0, TWO_HOSTS)).isEmpty();
  }

  private static NetworkExpectation intra(IntraNodeTransport transport) {
    return new NetworkExpectation().withIntraNode(transport);
  }

  private static NetworkExpectation inter(InterNodeTransport transport) {
    return new NetworkExpectation().withInterNode(transport);
  }

  private static FabricObservation seen(String... lines) {
    return FabricObservation.of(NcclTransportLog.parse(List.of(lines)));
  }
}
