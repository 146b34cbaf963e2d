package dev.gpucomm.runtime.hostir.passes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.hostir.TestPrograms;
import dev.gpucomm.runtime.hostir.ir.HostIrPrinter;
import dev.gpucomm.runtime.hostir.ir.Program;
import org.junit.jupiter.api.Test;

class P2pRingPipelineTest {
  @Test
  void columnParallelLinearBecomesARingOfIpcGetsOverlappedWithTheMatmuls() {
    // columnParallelLinear on 4 ranks: A[8, 2] split by rows, each rank's B[2, 2].
    Program columnParallel =
        TestPrograms.unpipelined(ProgramName.COLUMN_PARALLEL_LINEAR, 4, 8, 2, 2, 1);

    Program pipelined = new AssignStreams(3).apply(new P2pRingPipeline().apply(columnParallel));

    // Step i: rank r copies rank (i + r) % 4's chunk straight out of its memory and multiplies it,
    // while rank (4 + r - i) % 4 reads r's chunk; handles are shared first. At step 0 the chunk is
    // r's own, and the matmul reads it where it is.
    assertThat(HostIrPrinter.print(pipelined))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}], T1_g___bfloat[iS{2}, iS{2}]) -> (T3_g___bfloat[istreamIdx{4}, iS{2}, iS{2}, rS{2}]) :
              T2_g___bfloat[istreamIdx{4}, iS{2}, iS{2}] = ALLOCATE(buffer=T2_g___bfloat[istreamIdx{4}, iS{2}, iS{2}], mem_type=global, size=16, zero_init=false, resets_to_zero=false)
              T3_g___bfloat[istreamIdx{4}, iS{2}, iS{2}, rS{2}] = ALLOCATE(buffer=T3_g___bfloat[istreamIdx{4}, iS{2}, iS{2}, rS{2}], mem_type=global, size=16, zero_init=false, resets_to_zero=false)
              GetCurrentStream into Stream main
              FOR i0 in istreamIdx{4}:
                SetCurrentStream to Stream ( i0 % 3 )
                Synchronize Stream main
                T4_l___bfloat[iS{2}, iS{2}] = ShardByStream(T2_g___bfloat[istreamIdx{4}, iS{2}, iS{2}], stream_index = ( ( i0 + rank ) % 4 ))
                IF ( ( ( 4 + ( rank - i0 ) ) % 4 ) == rank ):
                  T5_l___bfloat[iS{2}, iS{2}, rS{2}] = ShardByStream(T3_g___bfloat[istreamIdx{4}, iS{2}, iS{2}, rS{2}], stream_index = ( ( i0 + rank ) % 4 ))
                  T5_l___bfloat[iS{2}, iS{2}, rS{2}]
                     = matmul(T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}],
                              T1_g___bfloat[iS{2}, iS{2}] )
                ELSE:
                  ShareMemHandles(P2PCommunication 1 (type=send, buffer=T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}], peer=( ( 4 + ( rank - i0 ) ) % 4 ), backend=IPC), P2PCommunication 2 (type=recv, buffer=T4_l___bfloat[iS{2}, iS{2}], peer=( ( i0 + rank ) % 4 ), backend=IPC))
                  P2PCommunication 1 (type=send, buffer=T0_g___bfloat[ideviceIdx.x{4}, iS{2}, iS{2}], peer=( ( 4 + ( rank - i0 ) ) % 4 ), backend=IPC)
                  P2PCommunication 2 (type=recv, buffer=T4_l___bfloat[iS{2}, iS{2}], peer=( ( i0 + rank ) % 4 ), backend=IPC)
                  Wait Communication 1
                  Wait Communication 2
                  T5_l___bfloat[iS{2}, iS{2}, rS{2}] = ShardByStream(T3_g___bfloat[istreamIdx{4}, iS{2}, iS{2}, rS{2}], stream_index = ( ( i0 + rank ) % 4 ))
                  T5_l___bfloat[iS{2}, iS{2}, rS{2}]
                     = matmul(T4_l___bfloat[iS{2}, iS{2}],
                              T1_g___bfloat[iS{2}, iS{2}] )
              SetCurrentStream to Stream main
              FOR i0 from 0 to 3:
                Synchronize Stream i0
            } // %HostIrContainer
            """);
  }

  @Test
  void thePassIsAPureFunction() {
    Program columnParallel =
        TestPrograms.unpipelined(ProgramName.COLUMN_PARALLEL_LINEAR, 4, 8, 2, 2, 1);

    assertThat(new P2pRingPipeline().apply(columnParallel))
        .isEqualTo(new P2pRingPipeline().apply(columnParallel));
    assertThat(columnParallel)
        .isEqualTo(TestPrograms.unpipelined(ProgramName.COLUMN_PARALLEL_LINEAR, 4, 8, 2, 2, 1));
  }
}
