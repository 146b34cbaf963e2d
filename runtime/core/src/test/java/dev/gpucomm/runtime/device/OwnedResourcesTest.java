package dev.gpucomm.runtime.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnedResourcesTest {
  private final List<String> closed = new ArrayList<>();
  private final OwnedResources owned = new OwnedResources();

  @Test
  void closingTheOwnerClosesWhatIsStillOpenNewestFirst() {
    owned.add(named("stream"));
    AutoCloseable event = owned.add(named("event"));
    owned.add(named("buffer"));
    owned.remove(event);

    owned.close();

    assertThat(closed).containsExactly("buffer", "stream");
  }

  @Test
  void aFailingResourceDoesNotKeepTheOthersOpenAndTheFirstFailureIsThrown() {
    owned.add(named("stream"));
    owned.add(failing("event", new IllegalStateException("event busy")));
    owned.add(failing("buffer", new java.io.IOException("unmapped twice")));

    assertThatThrownBy(owned::close)
        .hasMessageContaining("unmapped twice")
        .satisfies(
            failure ->
                assertThat(failure.getSuppressed())
                    .extracting(Throwable::getMessage)
                    .containsExactly("event busy"));
    assertThat(closed).containsExactly("buffer", "event", "stream");
  }

  @Test
  void closingTwiceClosesEachResourceOnce() {
    owned.add(named("graph"));

    owned.close();
    owned.close();

    assertThat(closed).containsExactly("graph");
  }

  private AutoCloseable named(String name) {
    return () -> closed.add(name);
  }

  private AutoCloseable failing(String name, Exception failure) {
    return () -> {
      closed.add(name);
      throw failure;
    };
  }
}
