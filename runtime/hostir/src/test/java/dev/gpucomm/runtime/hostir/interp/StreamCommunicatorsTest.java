package dev.gpucomm.runtime.hostir.interp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.testing.ForwardingCommunicator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a program's per-stream communicators end: closed after a run, aborted after a failure. */
class StreamCommunicatorsTest {
  private final List<String> ends = new ArrayList<>();

  @Test
  void aRunThatEndsWellClosesTheWorkersNewestFirst() {
    StreamCommunicators communicators = twoWorkers(null);

    communicators.close();

    assertThat(ends).containsExactly("close p/stream1", "close p/stream0");
  }

  @Test
  void afterAFailureTheWorkersAreAbortedNewestFirstAndNotClosedAfterwards() {
    StreamCommunicators communicators = twoWorkers(null);
    RuntimeException failure = new IllegalStateException("rank 0: a kernel failed");

    communicators.closeAfterFailure(failure);
    communicators.close();

    assertThat(ends).containsExactly("abort p/stream1", "abort p/stream0");
    assertThat(failure.getSuppressed()).isEmpty();
  }

  @Test
  void anAbortThatFailsIsAddedToTheFailureAndTheOtherWorkersAreStillAborted() {
    StreamCommunicators communicators = twoWorkers("p/stream1");
    RuntimeException failure = new IllegalStateException("rank 0: a kernel failed");

    communicators.closeAfterFailure(failure);

    assertThat(ends).containsExactly("abort p/stream1", "abort p/stream0");
    assertThat(failure.getSuppressed())
        .singleElement()
        .satisfies(e -> assertThat(e).hasMessage("ncclCommAbort of p/stream1 failed"));
  }

  /** Per-stream communicators of two built workers; the one named {@code failingAbort} fails it. */
  private StreamCommunicators twoWorkers(String failingAbort) {
    StreamCommunicators communicators =
        StreamCommunicators.perStream(
            null, (name, maxBlocks) -> new RecordingWorker(name, failingAbort), "p/");
    communicators.forWorker(1);
    return communicators;
  }

  /** A worker communicator that only records how it ended. */
  private final class RecordingWorker extends ForwardingCommunicator {
    private final String name;
    private final boolean abortFails;

    RecordingWorker(String name, String failingAbort) {
      super(null);
      this.name = name;
      this.abortFails = name.equals(failingAbort);
    }

    @Override
    public void close() {
      ends.add("close " + name);
    }

    @Override
    public void closeAfterFailure() {
      ends.add("abort " + name);
      if (abortFails) {
        throw new IllegalStateException("ncclCommAbort of " + name + " failed");
      }
    }
  }
}
