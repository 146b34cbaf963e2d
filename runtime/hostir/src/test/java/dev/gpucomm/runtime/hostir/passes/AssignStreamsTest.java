package dev.gpucomm.runtime.hostir.passes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.hostir.TestPrograms;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.GetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.HostIrPrinter;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.SetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.StreamRef;
import dev.gpucomm.runtime.hostir.ir.Synchronize;
import org.junit.jupiter.api.Test;

class AssignStreamsTest {
  /** rowParallelLinear on 2 ranks: t = 8 tokens in 4 chunks, h = 4 in and out. */
  private final Program rowParallel =
      TestPrograms.unpipelined(ProgramName.ROW_PARALLEL_LINEAR, 2, 8, 4, 4, 4);

  @Test
  void givenTheRowParallelLinearLoop_thenEachChunkIsMatmulThenAllReduceOnOneStream() {
    assertThat(HostIrPrinter.print(rowParallel))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g___bfloat[istreamIdx{4}, iS{2}, ideviceIdx.x{2}, iS{2}], T1_g___bfloat[ideviceIdx.x{2}, iS{2}, iS{4}]) -> (T2_g___bfloat[istreamIdx{4}, iS{2}, rdeviceIdx.x{2}, iS{4}]) :
              T2_g___bfloat[istreamIdx{4}, iS{2}, rdeviceIdx.x{2}, iS{4}] = ALLOCATE(buffer=T2_g___bfloat[istreamIdx{4}, iS{2}, rdeviceIdx.x{2}, iS{4}], mem_type=global, size=32, zero_init=false, resets_to_zero=false)
              FOR i0 in istreamIdx{4}:
                T3_l___bfloat[iS{2}, ideviceIdx.x{2}, iS{2}] = ShardByStream(T0_g___bfloat[istreamIdx{4}, iS{2}, ideviceIdx.x{2}, iS{2}], stream_index = i0)
                T4_g___bfloat[iS{2}, ideviceIdx.x{2}, iS{4}, rS{2}] = ALLOCATE(buffer=T4_g___bfloat[iS{2}, ideviceIdx.x{2}, iS{4}, rS{2}], mem_type=global, size=8, zero_init=false, resets_to_zero=false)
                T4_g___bfloat[iS{2}, ideviceIdx.x{2}, iS{4}, rS{2}]
                   = matmul(T3_l___bfloat[iS{2}, ideviceIdx.x{2}, iS{2}],
                            T1_g___bfloat[ideviceIdx.x{2}, iS{2}, iS{4}] )
                T5_l___bfloat[iS{2}, rdeviceIdx.x{2}, iS{4}] = ShardByStream(T2_g___bfloat[istreamIdx{4}, iS{2}, rdeviceIdx.x{2}, iS{4}], stream_index = i0)
                Communication 0 (type=Allreduce, team=(0 1), input=T4_g___bfloat[iS{2}, ideviceIdx.x{2}, iS{4}, rS{2}], output=T5_l___bfloat[iS{2}, rdeviceIdx.x{2}, iS{4}], backend=NCCL)
                Wait Communication 0
            } // %HostIrContainer
            """);
  }

  @Test
  void whenStreamsAreAssigned_thenTheWorkerIsSetBeforeItWaitsForMain_andMainJoinsEveryWorker() {
    Program assigned = new AssignStreams(2).apply(rowParallel);

    // Four chunks over two streams: chunk i runs on Stream (i % 2). Inside the loop the worker
    // stream becomes current first, then waits for main; after the loop main waits for both.
    assertThat(HostIrPrinter.print(assigned))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g___bfloat[istreamIdx{4}, iS{2}, ideviceIdx.x{2}, iS{2}], T1_g___bfloat[ideviceIdx.x{2}, iS{2}, iS{4}]) -> (T2_g___bfloat[istreamIdx{4}, iS{2}, rdeviceIdx.x{2}, iS{4}]) :
              T2_g___bfloat[istreamIdx{4}, iS{2}, rdeviceIdx.x{2}, iS{4}] = ALLOCATE(buffer=T2_g___bfloat[istreamIdx{4}, iS{2}, rdeviceIdx.x{2}, iS{4}], mem_type=global, size=32, zero_init=false, resets_to_zero=false)
              GetCurrentStream into Stream main
              FOR i0 in istreamIdx{4}:
                SetCurrentStream to Stream ( i0 % 2 )
                Synchronize Stream main
                T3_l___bfloat[iS{2}, ideviceIdx.x{2}, iS{2}] = ShardByStream(T0_g___bfloat[istreamIdx{4}, iS{2}, ideviceIdx.x{2}, iS{2}], stream_index = i0)
                T4_g___bfloat[iS{2}, ideviceIdx.x{2}, iS{4}, rS{2}] = ALLOCATE(buffer=T4_g___bfloat[iS{2}, ideviceIdx.x{2}, iS{4}, rS{2}], mem_type=global, size=8, zero_init=false, resets_to_zero=false)
                T4_g___bfloat[iS{2}, ideviceIdx.x{2}, iS{4}, rS{2}]
                   = matmul(T3_l___bfloat[iS{2}, ideviceIdx.x{2}, iS{2}],
                            T1_g___bfloat[ideviceIdx.x{2}, iS{2}, iS{4}] )
                T5_l___bfloat[iS{2}, rdeviceIdx.x{2}, iS{4}] = ShardByStream(T2_g___bfloat[istreamIdx{4}, iS{2}, rdeviceIdx.x{2}, iS{4}], stream_index = i0)
                Communication 0 (type=Allreduce, team=(0 1), input=T4_g___bfloat[iS{2}, ideviceIdx.x{2}, iS{4}, rS{2}], output=T5_l___bfloat[iS{2}, rdeviceIdx.x{2}, iS{4}], backend=NCCL)
                Wait Communication 0
              SetCurrentStream to Stream main
              FOR i0 from 0 to 2:
                Synchronize Stream i0
            } // %HostIrContainer
            """);
  }

  @Test
  void theLoopBodyStartsWithSetCurrentStreamThenSynchronizeMain() {
    Program assigned = new AssignStreams(3).apply(rowParallel);

    assertThat(assigned.body().get(1)).isEqualTo(new GetCurrentStream(StreamRef.named("main")));
    ForLoop loop = (ForLoop) assigned.body().get(2);
    assertThat(loop.body().get(0))
        .isEqualTo(new SetCurrentStream(StreamRef.worker(loop.index().mod(3))));
    assertThat(loop.body().get(1)).isEqualTo(new Synchronize(StreamRef.named("main")));
    assertThat(loop.body().subList(2, loop.body().size()))
        .isEqualTo(((ForLoop) rowParallel.body().get(1)).body());
  }

  @Test
  void theJoinLoopFollowsSetCurrentStreamMain_andSynchronizesOnlyStreamsThatRanChunks() {
    // Four chunks but eight streams: only streams 0..3 did any work.
    Program assigned = new AssignStreams(8).apply(rowParallel);

    assertThat(assigned.body().get(3)).isEqualTo(new SetCurrentStream(StreamRef.named("main")));
    ForLoop join = (ForLoop) assigned.body().get(4);
    assertThat(join.streamParallel()).isFalse();
    assertThat(join.stop()).isEqualTo(IndexExpr.constant(4));
    assertThat(join.body()).containsExactly(new Synchronize(StreamRef.worker(join.index())));
  }

  @Test
  void applyingThePassTwiceChangesNothingTheSecondTime() {
    Program once = new AssignStreams(2).apply(rowParallel);

    assertThat(new AssignStreams(2).apply(once)).isEqualTo(once);
  }

  @Test
  void programsWithoutStreamParallelLoopsAreLeftAlone() {
    Program columnParallel =
        TestPrograms.unpipelined(ProgramName.COLUMN_PARALLEL_LINEAR, 2, 4, 2, 2, 1);

    assertThat(new AssignStreams(3).apply(columnParallel)).isEqualTo(columnParallel);
  }
}
