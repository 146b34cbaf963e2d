package dev.gpucomm.runtime.hostir.interp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommBackend;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.RankThreads;
import dev.gpucomm.runtime.hostir.ir.Allocate;
import dev.gpucomm.runtime.hostir.ir.Axis;
import dev.gpucomm.runtime.hostir.ir.EndCoalescing;
import dev.gpucomm.runtime.hostir.ir.FreshNames;
import dev.gpucomm.runtime.hostir.ir.HostIrPrinter;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.MemoryType;
import dev.gpucomm.runtime.hostir.ir.P2PCommunication;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.StartCoalescing;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.ir.Wait;
import dev.gpucomm.runtime.numeric.ElementCodec;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CoalescingTest {
  @Test
  void aSendAndARecvInACoalescingGroupArePostedAsOneSendRecvPair() {
    int worldSize = 3;
    FreshNames names = FreshNames.empty();
    Tensor mine =
        names.tensor(
            DType.FP32, List.of(Axis.device(worldSize), Axis.serial(4)), MemoryType.GLOBAL);
    Tensor fromLeft = names.tensor(DType.FP32, List.of(Axis.serial(4)), MemoryType.GLOBAL);
    IndexExpr right = IndexExpr.rank().plus(IndexExpr.constant(1)).mod(worldSize);
    IndexExpr left = IndexExpr.rank().plus(IndexExpr.constant(worldSize - 1)).mod(worldSize);
    P2PCommunication send =
        new P2PCommunication(
            names.communication(), P2PCommunication.Direction.SEND, mine, right, CommBackend.NCCL);
    P2PCommunication recv =
        new P2PCommunication(
            names.communication(),
            P2PCommunication.Direction.RECV,
            fromLeft,
            left,
            CommBackend.NCCL);
    Program shift =
        new Program(
            worldSize,
            List.of(mine),
            List.of(fromLeft),
            List.of(
                new Allocate(fromLeft),
                new StartCoalescing(),
                send,
                recv,
                new EndCoalescing(),
                new Wait(send.id()),
                new Wait(recv.id())));
    assertThat(HostIrPrinter.print(shift))
        .isEqualTo(
            """
            %HostIrContainer { (T0_g_float[ideviceIdx.x{3}, iS{4}]) -> (T1_g_float[iS{4}]) :
              T1_g_float[iS{4}] = ALLOCATE(buffer=T1_g_float[iS{4}], mem_type=global, size=4, zero_init=false, resets_to_zero=false)
              StartCoalescing
              P2PCommunication 0 (type=send, buffer=T0_g_float[ideviceIdx.x{3}, iS{4}], peer=( ( rank + 1 ) % 3 ), backend=NCCL)
              P2PCommunication 1 (type=recv, buffer=T1_g_float[iS{4}], peer=( ( rank + 2 ) % 3 ), backend=NCCL)
              EndCoalescing
              Wait Communication 0
              Wait Communication 1
            } // %HostIrContainer
            """);
    CpuBackend backend = CpuRank.backend();
    InMemoryStore store = new InMemoryStore();
    ElementCodec codec = ElementCodec.of(DType.FP32);

    List<float[]> received =
        RankThreads.run(
            worldSize,
            Duration.ofSeconds(60),
            rank -> {
              try (CpuRank cpu = CpuRank.open(backend, store, rank, worldSize);
                  HostIrInterpreter interpreter =
                      HostIrInterpreter.create(
                          shift, cpu.device, cpu.communicators, store, cpu.topology);
                  Arena arena = Arena.ofConfined()) {
                MemorySegment host = arena.allocate(16);
                for (int index = 0; index < 4; index++) {
                  codec.write(host, index, 10 * rank + index);
                }
                cpu.device.upload(host, interpreter.buffer(mine), 0);
                Stream main = cpu.cpu.createStream();
                interpreter.run(main);
                interpreter.synchronize(main);
                cpu.device.download(interpreter.buffer(fromLeft), 0, host, main);
                main.close();
                assertThat(cpu.counts.sendReceives.get()).isEqualTo(1);
                float[] values = new float[4];
                codec.load(host, 0, values, 0, 4);
                return values;
              }
            });

    for (int rank = 0; rank < worldSize; rank++) {
      int leftRank = (rank + worldSize - 1) % worldSize;
      assertThat(received.get(rank))
          .containsExactly(
              10f * leftRank, 10f * leftRank + 1, 10f * leftRank + 2, 10f * leftRank + 3);
    }
  }
}
