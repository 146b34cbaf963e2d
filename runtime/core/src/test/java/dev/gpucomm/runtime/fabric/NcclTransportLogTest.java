package dev.gpucomm.runtime.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading NCCL's own INFO lines back into the transports it chose. */
class NcclTransportLogTest {
  @Test
  void twoGpusOfOneNodeOverNvlinkArePeerToPeer() {
    NcclTransportLog log =
        NcclTransportLog.parse(
            List.of(
                "host:123:456 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.2<0>",
                "host:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
                "host:123:456 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
                "host:123:456 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1"));
    assertThat(log.connections())
        .extracting(PeerConnection::transport)
        .containsExactly(TransportClass.P2P, TransportClass.P2P);
    assertThat(log.connections().getFirst())
        .isEqualTo(new PeerConnection(0, 1, TransportClass.P2P, "P2P/CUMEM/read"));
    assertThat(log.nics()).isEmpty();
  }

  @Test
  void withoutPeerAccessAndSharedMemoryNcclFallsToSockets() {
    NcclTransportLog log =
        NcclTransportLog.parse(
            List.of(
                "h:1:2 [1] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0> [1]eth1:10.1.0.2<0>",
                "h:1:2 [1] NCCL INFO Using network Socket",
                "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/Socket/0",
                "h:1:2 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [receive] via NET/Socket/0"));
    assertThat(log.connections())
        .extracting(PeerConnection::transport)
        .containsOnly(TransportClass.SOCKET);
    assertThat(log.nics()).containsExactlyInAnyOrder("eth0", "eth1");
  }

  @Test
  void infinibandAndRoceAreToldApartByThePortType() {
    List<String> connection =
        List.of("h:1:2 [0] NCCL INFO Channel 02/0 : 8[0] -> 0[0] [receive] via NET/IB/1/GDRDMA");
    NcclTransportLog ib =
        NcclTransportLog.parse(
            concat(
                "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB ib0:10.2.0.1<0>",
                connection));
    NcclTransportLog roce =
        NcclTransportLog.parse(
            concat(
                "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:1.2.3.4<0>",
                connection));
    assertThat(ib.connections().getFirst().transport()).isEqualTo(TransportClass.IB);
    assertThat(ib.nics()).containsExactlyInAnyOrder("mlx5_0:1", "mlx5_3:1");
    assertThat(roce.connections().getFirst().transport()).isEqualTo(TransportClass.ROCE);
  }

  @Test
  void sharedMemoryAndNetworkPluginsAreNamed() {
    NcclTransportLog log =
        NcclTransportLog.parse(
            List.of(
                "h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct",
                "h:1:2 [0] NCCL INFO Channel 00/0 : 2[2] -> 10[2] [send] via NET/Libfabric/2/GDRDMA"));
    assertThat(log.connections())
        .extracting(PeerConnection::transport)
        .containsExactly(TransportClass.SHM, TransportClass.PLUGIN);
  }

  @Test
  void theTopologySearchTellsNvlinkFromPcie() {
    NcclTransportLog log =
        NcclTransportLog.parse(
            List.of(
                "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 24, bw 40.000000/40.000000,"
                    + " type NVL/PIX, sameChannels 1",
                "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read"));
    assertThat(log.intraNodePaths()).containsExactly("NVL");
    assertThat(FabricObservation.of(log).summary()).isEqualTo("intra-node p2p (NVL)");
  }

  @Test
  void aSummaryNamesBothSidesOfATwoNodeJob() {
    NcclTransportLog log =
        NcclTransportLog.parse(
            List.of(
                "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.2.0.1<0>",
                "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
                "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/0/GDRDMA"));
    assertThat(FabricObservation.of(log).summary())
        .isEqualTo("intra-node p2p; inter-node ib via mlx5_0:1");
  }

  @Test
  void nccl228OnTwoH200sWithPeerAccessAndSharedMemoryOff() {
    // as NCCL 2.28.3 wrote them with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (two GPUs, one host)
    NcclTransportLog log =
        NcclTransportLog.parse(
            List.of(
                "vm:1632:1633 [0] NCCL INFO NET/IB : Using [RO]; OOB eth0:192.0.2.2<0>",
                "vm:1632:1633 [0] NCCL INFO NET/Socket : Using [0]eth0:192.0.2.2<0>",
                "vm:1632:1633 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 1, bw"
                    + " 1.200000/1.200000, type LOC/PHB, sameChannels 1",
                "vm:1632:1633 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0",
                "vm:1632:1633 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via"
                    + " NET/Socket/0"));
    assertThat(FabricObservation.of(log).summary()).isEqualTo("inter-node socket via eth0");
  }

  @Test
  void nccl228OnTwoH200sOverNvlink() {
    NcclTransportLog log =
        NcclTransportLog.parse(
            List.of("vm:1473:1474 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM"));
    assertThat(log.connections().getFirst().transport()).isEqualTo(TransportClass.P2P);
  }

  @Test
  void linesOfAnotherShapeAreSkippedNotGuessed() {
    NcclTransportLog log =
        NcclTransportLog.parse(
            List.of(
                "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 18000 - Init COMPLETE",
                "h:1:2 [0] NCCL INFO travelling via a road that is not a channel"));
    assertThat(log.connections()).isEmpty();
  }

  private static List<String> concat(String first, List<String> rest) {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(first), rest.stream())
        .toList();
  }
}
