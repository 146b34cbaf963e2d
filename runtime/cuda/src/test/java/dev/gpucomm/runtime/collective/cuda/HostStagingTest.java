package dev.gpucomm.runtime.collective.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.testing.InMemoryStore;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ranks of a node (threads here, processes in a pod) setting up the host path's staging. */
class HostStagingTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path folder;

  /** Page-locks nothing; remembers what is registered so a test can see it all undone. */
  static final class RecordingRegistrar implements HostStaging.Registrar {
    final Set<Long> registered = ConcurrentHashMap.newKeySet();
    final List<Long> everRegistered = Collections.synchronizedList(new ArrayList<>());
    final boolean refuse;

    RecordingRegistrar(boolean refuse) {
      this.refuse = refuse;
    }

    @Override
    public void register(long address, long bytes) {
      if (refuse) {
        throw new IllegalStateException("cuMemHostRegister failed: CUDA_ERROR_NOT_PERMITTED");
      }
      registered.add(address);
      everRegistered.add(address);
    }

    @Override
    public void unregister(long address) {
      assertThat(registered.remove(address)).as("unregistering what was registered").isTrue();
    }
  }

  @Test
  void eachRankSeesEveryPeersStagedBytesAndNoFileIsLeftBehind() throws Exception {
    int world = 4;
    RecordingRegistrar[] registrars = new RecordingRegistrar[world];
    for (int rank = 0; rank < world; rank++) {
      registrars[rank] = new RecordingRegistrar(false);
    }
    List<HostStaging> stagings = createAll(world, rank -> registrars[rank]);
    try {
      HostStaging rank0 = stagings.get(0);
      HostStaging rank2 = stagings.get(2);
      MemorySegment staged0 = MemorySegment.ofAddress(rank0.stagingAddress(0)).reinterpret(1 << 20);
      MemorySegment seenBy2 = MemorySegment.ofAddress(rank2.stagingAddress(0)).reinterpret(1 << 20);
      staged0.set(JAVA_LONG, 4096, 0x1234_5678_9abc_def0L);

      assertThat(seenBy2.get(JAVA_LONG, 4096)).isEqualTo(0x1234_5678_9abc_def0L);
      assertThat(rank0.bytes()).isEqualTo(1 << 20);
      assertThat(rank2.world()).isEqualTo(world);
      assertThat(rank2.localRank()).isEqualTo(2);

      assertThat(registrars[0].registered).as("every rank's whole mapping").hasSize(world);
      try (var files = Files.list(folder)) {
        assertThat(files).as("staging files, deleted once every rank mapped them").isEmpty();
      }
    } finally {
      stagings.forEach(HostStaging::close);
    }
    for (RecordingRegistrar registrar : registrars) {
      assertThat(registrar.registered).isEmpty();
    }
  }

  @Test
  void oneRankFailingToRegisterTurnsTheHostPathOffOnBothWithItsReason() throws Exception {
    RecordingRegistrar[] registrars = {new RecordingRegistrar(false), new RecordingRegistrar(true)};
    List<Throwable> failures = new ArrayList<>();
    try (ExecutorService ranks = Executors.newFixedThreadPool(2)) {
      List<Future<HostStaging>> futures = new ArrayList<>();
      for (int rank = 0; rank < 2; rank++) {
        int localRank = rank;
        futures.add(ranks.submit(() -> create(localRank, registrars[localRank])));
      }
      for (Future<HostStaging> future : futures) {
        try {
          future.get().close();
        } catch (java.util.concurrent.ExecutionException e) {
          failures.add(e.getCause());
        }
      }
    }

    assertThat(failures)
        .hasSize(2)
        .allSatisfy(f -> assertThat(f).isInstanceOf(HostStaging.HostPathUnavailable.class));
    assertThat(failures.get(0).getMessage())
        .isEqualTo(failures.get(1).getMessage())
        .isEqualTo(
            "host staging failed, rank 1: cuMemHostRegister failed: CUDA_ERROR_NOT_PERMITTED");
    assertThat(registrars[0].registered).as("rank 0 undid its registration").isEmpty();
    try (var files = Files.list(folder)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aFolderThatCannotHoldTheFilesTurnsTheHostPathOffOnBothRanksWithOneReason() throws Exception {
    Path missing = folder.resolve("no-such-folder");
    List<Throwable> failures = new ArrayList<>();
    try (ExecutorService ranks = Executors.newFixedThreadPool(2)) {
      List<Future<HostStaging>> futures = new ArrayList<>();
      for (int rank = 0; rank < 2; rank++) {
        int localRank = rank;
        futures.add(
            ranks.submit(
                () ->
                    HostStaging.create(
                        missing,
                        1 << 20,
                        sharedStore,
                        "job/node-0/host-path",
                        localRank,
                        2,
                        TIMEOUT,
                        new RecordingRegistrar(false))));
      }
      for (Future<HostStaging> future : futures) {
        try {
          future.get().close();
        } catch (java.util.concurrent.ExecutionException e) {
          failures.add(e.getCause());
        }
      }
    }

    assertThat(failures).hasSize(2);
    assertThat(failures.get(0).getMessage())
        .isEqualTo(failures.get(1).getMessage())
        .startsWith("host staging failed, rank 0: ")
        .contains("no-such-folder");
  }

  private List<HostStaging> createAll(int world, IntFunction<HostStaging.Registrar> registrars)
      throws Exception {
    List<HostStaging> stagings = new ArrayList<>();
    try (ExecutorService ranks = Executors.newFixedThreadPool(world)) {
      List<Future<HostStaging>> futures = new ArrayList<>();
      InMemoryStore store = new InMemoryStore();
      for (int rank = 0; rank < world; rank++) {
        int localRank = rank;
        futures.add(
            ranks.submit(
                () ->
                    HostStaging.create(
                        folder,
                        1 << 20,
                        store,
                        "job/node-0/host-path",
                        localRank,
                        world,
                        TIMEOUT,
                        registrars.apply(localRank))));
      }
      for (Future<HostStaging> future : futures) {
        stagings.add(future.get());
      }
    }
    return stagings;
  }

  private final InMemoryStore sharedStore = new InMemoryStore();

  private HostStaging create(int rank, HostStaging.Registrar registrar) {
    return HostStaging.create(
        folder, 1 << 20, sharedStore, "job/node-0/host-path", rank, 2, TIMEOUT, registrar);
  }
}
