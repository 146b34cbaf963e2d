package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.bench.ResultMismatchException;
import dev.gpucomm.runtime.launch.RankError;
import dev.gpucomm.runtime.rendezvous.PeerFailedException;
import dev.gpucomm.runtime.spec.InvalidJobException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** How a rank's failure becomes the one line (and kind) its supervisor reports. */
class FailureClassificationTest {
  @Test
  void aBadJobIsAUsageError() {
    RankError error =
        Gpucomm.classify(new InvalidJobException("job.yaml", "spec.worldSize", "required"));

    assertThat(error)
        .isEqualTo(new RankError(RankError.Kind.USAGE, "job.yaml: spec.worldSize: required"));
    assertThat(error.exitCode()).isEqualTo(2);
  }

  @Test
  void aWrongResultIsTheRanksOwnFailureInItsOwnWords() {
    RankError error =
        Gpucomm.classify(
            new ResultMismatchException(
                "allreduce oneshot at 4 KiB: rank 1 output element 3 is 0.5"));

    assertThat(error)
        .isEqualTo(
            new RankError(
                RankError.Kind.FAILURE,
                "allreduce oneshot at 4 KiB: rank 1 output element 3 is 0.5"));
    assertThat(error.exitCode()).isEqualTo(1);
  }

  @Test
  void noticingADeadPeerIsAConsequenceEvenWhenWrapped() {
    RankError error =
        Gpucomm.classify(
            new CompletionException(
                new IllegalStateException(
                    "kernel failed", new PeerFailedException("rendezvous: rank 2 disconnected"))));

    assertThat(error.kind()).isEqualTo(RankError.Kind.PEER);
  }

  @Test
  void aBugNamesItsType() {
    RankError error =
        Gpucomm.classify(new NullPointerException("Cannot invoke \"x\"\nsecond line"));

    assertThat(error.message())
        .isEqualTo("NullPointerException: Cannot invoke \"x\" | second line");
  }

  @Test
  void anErrorPicocliLetsPassIsOneLineAndExitOne() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliContext context =
        new CliContext(
            new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of(),
            false,
            false);

    int exit =
        Gpucomm.oneLineOnError(
            () -> {
              throw new OutOfMemoryError("Java heap space");
            },
            context);

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("gpucomm: out of Java heap memory (Java heap space)" + System.lineSeparator());
  }
}
