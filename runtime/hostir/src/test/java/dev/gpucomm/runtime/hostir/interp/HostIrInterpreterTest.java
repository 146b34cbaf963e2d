package dev.gpucomm.runtime.hostir.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.api.v1alpha1.ProgramName;
import dev.gpucomm.runtime.collective.cpu.CpuBackend;
import dev.gpucomm.runtime.device.Stream;
import dev.gpucomm.runtime.hostir.CountingStore;
import dev.gpucomm.runtime.hostir.RankThreads;
import dev.gpucomm.runtime.hostir.TestPrograms;
import dev.gpucomm.runtime.hostir.ir.Axis;
import dev.gpucomm.runtime.hostir.ir.Copy;
import dev.gpucomm.runtime.hostir.ir.ForLoop;
import dev.gpucomm.runtime.hostir.ir.FreshNames;
import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import dev.gpucomm.runtime.hostir.ir.MemoryType;
import dev.gpucomm.runtime.hostir.ir.Program;
import dev.gpucomm.runtime.hostir.ir.SetCurrentStream;
import dev.gpucomm.runtime.hostir.ir.ShardByStream;
import dev.gpucomm.runtime.hostir.ir.StreamRef;
import dev.gpucomm.runtime.hostir.ir.Tensor;
import dev.gpucomm.runtime.hostir.passes.PassOptions;
import dev.gpucomm.runtime.hostir.passes.Passes;
import dev.gpucomm.runtime.hostir.programs.HostProgram;
import dev.gpucomm.runtime.testing.InMemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The interpreter on the CPU backend, ranks as threads. */
class HostIrInterpreterTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private static Program pipelined(HostProgram program, List<PassName> passes, int streams) {
    return Passes.of(passes, new PassOptions(streams)).apply(program.build());
  }

  @ParameterizedTest(name = "on {0} ranks")
  @ValueSource(ints = {1, 2, 3, 5, 8})
  void theCollectivePermuteMakesExactlyDMinusOneSendRecvPairsPerRank(int worldSize) {
    HostProgram program =
        TestPrograms.program(
            TestPrograms.spec(ProgramName.COLLECTIVE_PERMUTE, 2L * worldSize, 1, 3, 1), worldSize);
    Program permuted =
        pipelined(
            program, List.of(PassName.COLLECTIVE_PERMUTE_ALLGATHER, PassName.ASSIGN_STREAMS), 3);
    CpuBackend backend = CpuRank.backend();
    InMemoryStore store = new InMemoryStore();

    List<int[]> counts =
        RankThreads.run(
            worldSize,
            TIMEOUT,
            rank -> {
              try (CpuRank cpu = CpuRank.open(backend, store, rank, worldSize);
                  HostIrInterpreter interpreter =
                      HostIrInterpreter.create(
                          permuted, cpu.device, cpu.communicators, store, cpu.topology)) {
                Stream main = cpu.cpu.createStream();
                ProgramData.upload(program, permuted, interpreter, cpu.device, rank);
                interpreter.run(main);
                ProgramData.assertExact(program, permuted, interpreter, cpu.device, main, rank);
                main.close();
                return new int[] {cpu.counts.sendReceives.get(), cpu.counts.allGathers.get()};
              }
            });

    assertThat(counts)
        .allSatisfy(
            count -> {
              assertThat(count[0]).as("send/recv pairs").isEqualTo(worldSize - 1);
              assertThat(count[1]).as("all-gathers").isZero();
            });
  }

  @Test
  void theRingOverIpcCopiesFromPeersWithTheGetProtocol_andExchangesHandlesOnlyOnce() {
    int worldSize = 4;
    HostProgram program =
        TestPrograms.program(
            TestPrograms.spec(ProgramName.COLUMN_PARALLEL_LINEAR, 8, 4, 6, 1), worldSize);
    Program ring =
        pipelined(program, List.of(PassName.P2P_RING_PIPELINE, PassName.ASSIGN_STREAMS), 2);
    CpuBackend backend = CpuRank.backend();
    InMemoryStore store = new InMemoryStore();

    List<int[]> results =
        RankThreads.run(
            worldSize,
            TIMEOUT,
            rank -> {
              CountingStore programStore = new CountingStore(store);
              try (CpuRank cpu = CpuRank.open(backend, store, rank, worldSize);
                  HostIrInterpreter interpreter =
                      HostIrInterpreter.create(
                          ring,
                          cpu.device,
                          cpu.communicators,
                          programStore,
                          cpu.topology,
                          TIMEOUT,
                          Optional.of(new CpuStreamMemoryOperations(cpu.cpu)))) {
                Stream main = cpu.cpu.createStream();
                ProgramData.upload(program, ring, interpreter, cpu.device, rank);
                interpreter.run(main);
                ProgramData.assertExact(program, ring, interpreter, cpu.device, main, rank);
                int storeCallsOfFirstRun = programStore.calls.get();
                for (int run = 0; run < 3; run++) {
                  interpreter.run(main);
                }
                ProgramData.assertExact(program, ring, interpreter, cpu.device, main, rank);
                assertThat(interpreter.transports())
                    .containsExactly(
                        "P2P: ipc get protocol (stream memory operations on semaphores)");
                main.close();
                return new int[] {
                  storeCallsOfFirstRun,
                  programStore.calls.get(),
                  programStore.barriers.get(),
                  cpu.counts.sendReceives.get()
                };
              }
            });

    assertThat(results)
        .allSatisfy(
            calls -> {
              // Own semaphores published once and own chunk once per reader; each of the three
              // peers' chunk and semaphores fetched once.
              assertThat(calls[0]).as("store calls of the first run").isEqualTo(1 + 3 + 3 + 3);
              assertThat(calls[1]).as("store calls after three more runs").isEqualTo(calls[0]);
              assertThat(calls[2]).as("barriers").isZero();
              assertThat(calls[3]).as("communicator send/recv pairs").isZero();
            });
  }

  @Test
  void withoutStreamMemoryOperationsTheRingPairsItsSendsAndRecvsThroughTheCommunicator() {
    int worldSize = 3;
    HostProgram program =
        TestPrograms.program(
            TestPrograms.spec(ProgramName.COLUMN_PARALLEL_LINEAR, 6, 4, 4, 1), worldSize);
    Program ring =
        pipelined(program, List.of(PassName.P2P_RING_PIPELINE, PassName.ASSIGN_STREAMS), 3);
    CpuBackend backend = CpuRank.backend();
    InMemoryStore store = new InMemoryStore();

    List<Integer> pairs =
        RankThreads.run(
            worldSize,
            TIMEOUT,
            rank -> {
              try (CpuRank cpu = CpuRank.open(backend, store, rank, worldSize);
                  HostIrInterpreter interpreter =
                      HostIrInterpreter.create(
                          ring,
                          cpu.device,
                          cpu.communicators,
                          store,
                          cpu.topology,
                          TIMEOUT,
                          Optional.empty())) {
                Stream main = cpu.cpu.createStream();
                ProgramData.upload(program, ring, interpreter, cpu.device, rank);
                interpreter.run(main);
                ProgramData.assertExact(program, ring, interpreter, cpu.device, main, rank);
                assertThat(interpreter.transports())
                    .singleElement()
                    .asString()
                    .startsWith("P2P: communicator sendReceive pairs (ipc backend;");
                main.close();
                return cpu.counts.sendReceives.get();
              }
            });

    assertThat(pairs).containsOnly(worldSize - 1);
  }

  @Test
  void memoryStreamsAndEventsAreCreatedByTheFirstRunOnly() {
    HostProgram program =
        TestPrograms.program(TestPrograms.spec(ProgramName.ROW_PARALLEL_LINEAR, 16, 4, 4, 4), 2);
    Program assigned = pipelined(program, List.of(PassName.ASSIGN_STREAMS), 3);
    CpuBackend backend = CpuRank.backend();
    InMemoryStore store = new InMemoryStore();

    List<int[]> counts =
        RankThreads.run(
            2,
            TIMEOUT,
            rank -> {
              try (CpuRank cpu = CpuRank.open(backend, store, rank, 2);
                  HostIrInterpreter interpreter =
                      HostIrInterpreter.create(
                          assigned, cpu.device, cpu.communicators, store, cpu.topology)) {
                Stream main = cpu.cpu.createStream();
                ProgramData.upload(program, assigned, interpreter, cpu.device, rank);
                interpreter.run(main);
                int[] afterFirst = {
                  cpu.device.allocations.get(), cpu.device.streams.get(), cpu.device.events.get()
                };
                for (int run = 0; run < 3; run++) {
                  interpreter.run(main);
                }
                ProgramData.assertExact(program, assigned, interpreter, cpu.device, main, rank);
                int[] afterFour = {
                  cpu.device.allocations.get(), cpu.device.streams.get(), cpu.device.events.get()
                };
                assertThat(afterFour).isEqualTo(afterFirst);
                assertThat(interpreter.workerStreams()).isEqualTo(3);
                assertThat(cpu.communicators.extraCommunicators()).isEqualTo(3);
                main.close();
                return afterFirst;
              }
            });

    // Inputs (2) and output (1), one partial product per chunk (4); three worker streams; one
    // event recorded on main for the workers to wait for, one per worker for the join.
    assertThat(counts).allSatisfy(count -> assertThat(count).containsExactly(2 + 1 + 4, 3, 1 + 3));
  }

  @Test
  void workersSeeWhatMainDidBeforeTheLoop_andMainSeesWhatTheWorkersDid() {
    // Main computes A = X·W (a real matmul), then four chunks of A are copied to B on three worker
    // streams; main downloads B. Without Synchronize main / the join, the copies could race.
    HostProgram program =
        TestPrograms.program(
            TestPrograms.spec(ProgramName.COLUMN_PARALLEL_LINEAR, 64, 32, 64, 1), 1);
    Program reference = program.build();
    FreshNames names = FreshNames.after(reference);
    Tensor product = reference.outputs().getFirst();
    Tensor copy = names.tensor(product.dtype(), product.axes(), MemoryType.GLOBAL);
    // The product's stream axis has extent 1 (one rank): chunk the copy over it is not enough, so
    // copy through a four-chunk view of the same bytes.
    Tensor fourChunks =
        new Tensor(
            product.id(),
            product.dtype(),
            List.of(Axis.stream(4), Axis.serial(16), Axis.serial(32)),
            MemoryType.GLOBAL);
    Tensor copyChunks =
        new Tensor(
            copy.id(),
            copy.dtype(),
            List.of(Axis.stream(4), Axis.serial(16), Axis.serial(32)),
            MemoryType.GLOBAL);
    IndexExpr.LoopIndex i = names.loopIndex();
    Tensor from =
        names.tensor(DType.BF16, List.of(Axis.serial(16), Axis.serial(32)), MemoryType.LOCAL);
    Tensor to =
        names.tensor(DType.BF16, List.of(Axis.serial(16), Axis.serial(32)), MemoryType.LOCAL);
    Program copyAfter =
        new Program(
            1,
            reference.inputs(),
            List.of(copyChunks),
            concat(
                reference.body(),
                List.of(
                    new dev.gpucomm.runtime.hostir.ir.Allocate(copyChunks),
                    new ForLoop(
                        i,
                        IndexExpr.constant(0),
                        IndexExpr.constant(4),
                        List.of(
                            new ShardByStream(from, fourChunks, i),
                            new ShardByStream(to, copyChunks, i),
                            new Copy(to, from)),
                        true))));
    Program assigned =
        Passes.of(List.of(PassName.ASSIGN_STREAMS), new PassOptions(3)).apply(copyAfter);
    CpuBackend backend = CpuRank.backend();
    InMemoryStore store = new InMemoryStore();

    RankThreads.run(
        1,
        TIMEOUT,
        rank -> {
          try (CpuRank cpu = CpuRank.open(backend, store, 0, 1);
              HostIrInterpreter interpreter =
                  HostIrInterpreter.create(
                      assigned, cpu.device, cpu.communicators, store, cpu.topology)) {
            Stream main = cpu.cpu.createStream();
            ProgramData.upload(program, assigned, interpreter, cpu.device, 0);
            interpreter.run(main);
            ProgramData.assertExact(program, assigned, interpreter, cpu.device, main, 0);
            main.close();
            return null;
          }
        });
  }

  @Test
  void aLoopIndexUsedOutsideItsLoopIsRefused() {
    Program program = TestPrograms.unpipelined(ProgramName.ROW_PARALLEL_LINEAR, 1, 8, 4, 4, 2);
    ForLoop loop = (ForLoop) program.body().get(1);
    Program broken =
        program.withBody(
            concat(program.body(), List.of(new SetCurrentStream(StreamRef.worker(loop.index())))));

    assertThatThrownBy(() -> interpreterOnOneRank(broken))
        .hasMessageContaining("loop index i0 used outside its loop");
  }

  @Test
  void aProgramThatDoesNotReturnToItsMainStreamIsRefused() {
    Program program = TestPrograms.unpipelined(ProgramName.ROW_PARALLEL_LINEAR, 1, 8, 4, 4, 2);
    Program broken =
        program.withBody(
            concat(
                List.of(new SetCurrentStream(StreamRef.worker(IndexExpr.constant(0)))),
                program.body()));

    assertThatThrownBy(() -> interpreterOnOneRank(broken))
        .hasMessageContaining("a SetCurrentStream to main is missing");
  }

  private static void interpreterOnOneRank(Program program) {
    CpuBackend backend = CpuRank.backend();
    InMemoryStore store = new InMemoryStore();
    try (CpuRank cpu = CpuRank.open(backend, store, 0, 1);
        HostIrInterpreter interpreter =
            HostIrInterpreter.create(program, cpu.device, cpu.communicators, store, cpu.topology)) {
      Stream main = cpu.cpu.createStream();
      try {
        interpreter.run(main);
        interpreter.synchronize(main);
      } finally {
        main.close();
      }
    }
  }

  @SafeVarargs
  private static <T> List<T> concat(List<? extends T>... lists) {
    return java.util.Arrays.stream(lists).<T>flatMap(List::stream).toList();
  }
}
