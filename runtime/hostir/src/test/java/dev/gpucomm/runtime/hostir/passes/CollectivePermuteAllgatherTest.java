package dev.gpucomm.runtime.hostir.passes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.hostir.TestPrograms;
import dev.gpucomm.runtime.hostir.ir.CollectivePermute;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.HostIrPrinter;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.ShardByStream;
import org.junit.jupiter.api.Test;

class CollectivePermuteAllgatherTest {
  /**
   * nvFuser's collective-permute test on 4 ranks: X[8, 2] split by rows, gathered on every rank.
   */
  private final Program gather =
      TestPrograms.unpipelined(ProgramName.COLLECTIVE_PERMUTE, 4, 8, 1, 2, 1);

  @Test
  void givenAnAllgatherIntoAStreamParallelTensor() {
    assertThat(HostIrPrinter.print(gather))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}]) -> (T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}]) :
              T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}] = ALLOCATE(buffer=T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}], mem_type=global, size=16, zero_init=false, resets_to_zero=false)
              Communication 0 (type=Allgather, team=(0 1 2 3), input=T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}], output=T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}], backend=NCCL)
              Wait Communication 0
            } // %HostIrContainer
            """);
  }

  @Test
  void thenEachIterationIsOneCollectivePermuteIntoTheSwizzledChunk() {
    Program permuted = new CollectivePermuteAllgather().apply(gather);

    // Step i on rank r fills chunk (i + r) % 4 with what rank (i + r) % 4 sends, and sends its own
    // chunk to rank (4 + r - i) % 4.
    assertThat(HostIrPrinter.print(permuted))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}]) -> (T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}]) :
              T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}] = ALLOCATE(buffer=T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}], mem_type=global, size=16, zero_init=false, resets_to_zero=false)
              FOR i0 in istreamIdx{4}:
                T2_l___bfloat[iS{2}, iS{2}] = ShardByStream(T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}], stream_index = ( ( i0 + rank ) % 4 ))
                Communication 1 (type=CollectivePermute, team=(0 1 2 3), input=T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}], output=T2_l___bfloat[iS{2}, iS{2}], send_peer=( ( 4 + ( rank - i0 ) ) % 4 ), recv_peer=( ( i0 + rank ) % 4 ), backend=NCCL)
                Wait Communication 1
            } // %HostIrContainer
            """);
  }

  @Test
  void withStreamsAssigned_eachPermuteRunsOnItsOwnStream() {
    Program pipelined = new AssignStreams(3).apply(new CollectivePermuteAllgather().apply(gather));

    assertThat(HostIrPrinter.print(pipelined))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}]) -> (T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}]) :
              T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}] = ALLOCATE(buffer=T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}], mem_type=global, size=16, zero_init=false, resets_to_zero=false)
              GetCurrentStream into Stream main
              FOR i0 in istreamIdx{4}:
                SetCurrentStream to Stream ( i0 % 3 )
                Synchronize Stream main
                T2_l___bfloat[iS{2}, iS{2}] = ShardByStream(T1_g___bfloat[istreamIdx{4}, iS{2}, iS{2}], stream_index = ( ( i0 + rank ) % 4 ))
                Communication 1 (type=CollectivePermute, team=(0 1 2 3), input=T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}], output=T2_l___bfloat[iS{2}, iS{2}], send_peer=( ( 4 + ( rank - i0 ) ) % 4 ), recv_peer=( ( i0 + rank ) % 4 ), backend=NCCL)
                Wait Communication 1
              SetCurrentStream to Stream main
              FOR i0 from 0 to 3:
                Synchronize Stream i0
            } // %HostIrContainer
            """);
  }

  @Test
  void peersFollowTheSeedsSwizzle_stepZeroIsLocal_andEveryRankSendsAndReceivesOncePerOtherRank() {
    int worldSize = 4;
    ForLoop loop = (ForLoop) new CollectivePermuteAllgather().apply(gather).body().get(1);
    ShardByStream chunk = (ShardByStream) loop.body().get(0);
    CollectivePermute permute = (CollectivePermute) loop.body().get(1);

    // The schedule as a table: [rank][step] -> {chunk, receive from, send to}.
    long[][][] expected = {
      {{0, 0, 0}, {1, 1, 3}, {2, 2, 2}, {3, 3, 1}},
      {{1, 1, 1}, {2, 2, 0}, {3, 3, 3}, {0, 0, 2}},
      {{2, 2, 2}, {3, 3, 1}, {0, 0, 0}, {1, 1, 3}},
      {{3, 3, 3}, {0, 0, 2}, {1, 1, 1}, {2, 2, 0}},
    };
    for (int rank = 0; rank < worldSize; rank++) {
      for (int step = 0; step < worldSize; step++) {
        IndexExpr.Environment environment = environment(loop.index(), step, rank);
        assertThat(
                new long[] {
                  chunk.index().evaluate(environment),
                  permute.recvPeer().evaluate(environment),
                  permute.sendPeer().evaluate(environment)
                })
            .as("rank %d step %d: chunk, recv peer, send peer", rank, step)
            .containsExactly(expected[rank][step]);
      }
    }
    // What rank r sends at step i is what its receiver expects at step i.
    for (int rank = 0; rank < worldSize; rank++) {
      for (int step = 0; step < worldSize; step++) {
        int receiver = (int) permute.sendPeer().evaluate(environment(loop.index(), step, rank));
        assertThat(permute.recvPeer().evaluate(environment(loop.index(), step, receiver)))
            .isEqualTo(rank);
      }
    }
  }

  @Test
  void programsWithoutAStreamParallelAllgatherAreLeftAlone() {
    Program rowParallel = TestPrograms.unpipelined(ProgramName.ROW_PARALLEL_LINEAR, 2, 8, 4, 4, 4);

    assertThat(new CollectivePermuteAllgather().apply(rowParallel)).isEqualTo(rowParallel);
  }

  private static IndexExpr.Environment environment(
      IndexExpr.LoopIndex index, long value, int rank) {
    return new IndexExpr.Environment() {
      @Override
      public long valueOf(IndexExpr.LoopIndex loopIndex) {
        assertThat(loopIndex).isEqualTo(index);
        return value;
      }

      @Override
      public int rank() {
        return rank;
      }
    };
  }
}
