package dev.gpucomm.runtime.rendezvous;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class InMemoryStoreTest {
  private final InMemoryStore store = new InMemoryStore();

  @Test
  void aGetWaitsForTheKeyToBeSet() {
    CompletableFuture<byte[]> value =
        CompletableFuture.supplyAsync(() -> store.get("handle", Duration.ofSeconds(10)));
    store.set("handle", "abc".getBytes(StandardCharsets.UTF_8));
    assertThat(value.join()).asString(StandardCharsets.UTF_8).isEqualTo("abc");
  }

  @Test
  void aKeyThatIsNeverSetTimesOutNamingIt() {
    assertThatThrownBy(() -> store.get("rank-3/buffer", Duration.ofMillis(50)))
        .isInstanceOf(RendezvousTimeoutException.class)
        .hasMessage("key 'rank-3/buffer' was not set within 50 ms");
  }

  @Test
  void countersAddAtomically() {
    assertThat(store.add("count", 1)).isEqualTo(1);
    assertThat(store.add("count", 5)).isEqualTo(6);
    assertThat(store.add("other", 1)).isEqualTo(1);
  }

  @Test
  void aBarrierReleasesEveryoneOnceAllArriveAndTimesOutSayingHowManyCame() {
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(() -> store.barrier("ready", 2, Duration.ofSeconds(10)));
    store.barrier("ready", 2, Duration.ofSeconds(10));
    first.join();

    assertThatThrownBy(() -> store.barrier("lonely", 3, Duration.ofMillis(50)))
        .isInstanceOf(RendezvousTimeoutException.class)
        .hasMessage("barrier 'lonely': 1 of 3 arrived within 50 ms");
  }
}
