package dev.gpucomm.runtime.hostir.passes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.hostir.TestPrograms;
import dev.gpucomm.runtime.hostir.ir.HostIrPrinter;
import dev.gpucomm.runtime.hostir.ir.Program;
import org.junit.jupiter.api.Test;

class BroadcastAllgatherTest {
  /** columnParallelLinear on 2 ranks: A[4, 2] split by rows, each rank's B[2, 2]. */
  private final Program columnParallel =
      TestPrograms.unpipelined(ProgramName.COLUMN_PARALLEL_LINEAR, 2, 4, 2, 2, 1);

  @Test
  void givenAnAllgatherFollowedByOneMatmul() {
    assertThat(HostIrPrinter.print(columnParallel))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g___bfloat[ideviceIdx.x{2}, iS{2}, iS{2}], T1_g___bfloat[iS{2}, iS{2}]) -> (T3_g___bfloat[istreamIdx{2}, iS{2}, iS{2}, rS{2}]) :
              T2_g___bfloat[istreamIdx{2}, iS{2}, iS{2}] = ALLOCATE(buffer=T2_g___bfloat[istreamIdx{2}, iS{2}, iS{2}], mem_type=global, size=8, zero_init=false, resets_to_zero=false)
              T3_g___bfloat[istreamIdx{2}, iS{2}, iS{2}, rS{2}] = ALLOCATE(buffer=T3_g___bfloat[istreamIdx{2}, iS{2}, iS{2}, rS{2}], mem_type=global, size=8, zero_init=false, resets_to_zero=false)
              Communication 0 (type=Allgather, team=(0 1), input=T0_g___bfloat[ideviceIdx.x{2}, iS{2}, iS{2}], output=T2_g___bfloat[istreamIdx{2}, iS{2}, iS{2}], backend=NCCL)
              Wait Communication 0
              T3_g___bfloat[istreamIdx{2}, iS{2}, iS{2}, rS{2}]
                 = matmul(T2_g___bfloat[istreamIdx{2}, iS{2}, iS{2}],
                          T1_g___bfloat[iS{2}, iS{2}] )
            } // %HostIrContainer
            """);
  }

  @Test
  void thenIterationIBroadcastsRankIsChunkAndMultipliesIt_onStreamIModS() {
    Program pipelined = new AssignStreams(2).apply(new BroadcastAllgather().apply(columnParallel));

    assertThat(HostIrPrinter.print(pipelined))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g___bfloat[ideviceIdx.x{2}, iS{2}, iS{2}], T1_g___bfloat[iS{2}, iS{2}]) -> (T3_g___bfloat[istreamIdx{2}, iS{2}, iS{2}, rS{2}]) :
              T2_g___bfloat[istreamIdx{2}, iS{2}, iS{2}] = ALLOCATE(buffer=T2_g___bfloat[istreamIdx{2}, iS{2}, iS{2}], mem_type=global, size=8, zero_init=false, resets_to_zero=false)
              T3_g___bfloat[istreamIdx{2}, iS{2}, iS{2}, rS{2}] = ALLOCATE(buffer=T3_g___bfloat[istreamIdx{2}, iS{2}, iS{2}, rS{2}], mem_type=global, size=8, zero_init=false, resets_to_zero=false)
              GetCurrentStream into Stream main
              FOR i0 in istreamIdx{2}:
                SetCurrentStream to Stream ( i0 % 2 )
                Synchronize Stream main
                T4_l___bfloat[iS{2}, iS{2}] = ShardByStream(T2_g___bfloat[istreamIdx{2}, iS{2}, iS{2}], stream_index = i0)
                Communication 1 (type=Broadcast, team=(0 1), root=i0, input=T0_g___bfloat[ideviceIdx.x{2}, iS{2}, iS{2}], output=T4_l___bfloat[iS{2}, iS{2}], backend=NCCL)
                Wait Communication 1
                T5_l___bfloat[iS{2}, iS{2}, rS{2}] = ShardByStream(T3_g___bfloat[istreamIdx{2}, iS{2}, iS{2}, rS{2}], stream_index = i0)
                T5_l___bfloat[iS{2}, iS{2}, rS{2}]
                   = matmul(T4_l___bfloat[iS{2}, iS{2}],
                            T1_g___bfloat[iS{2}, iS{2}] )
              SetCurrentStream to Stream main
              FOR i0 from 0 to 2:
                Synchronize Stream i0
            } // %HostIrContainer
            """);
  }
}
