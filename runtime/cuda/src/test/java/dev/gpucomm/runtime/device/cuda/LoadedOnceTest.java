package dev.gpucomm.runtime.device.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A binding is loaded once; a host without the library is probed once and told why each time. */
class LoadedOnceTest {
  @Test
  void aLoadedBindingIsLoadedOnceAndReturnedEveryTime() {
    AtomicInteger loads = new AtomicInteger();
    LoadedOnce<String> binding = new LoadedOnce<>(() -> "binding " + loads.incrementAndGet());

    assertThat(binding.get()).isEqualTo("binding 1");
    assertThat(binding.get()).isEqualTo("binding 1");
    assertThat(loads).hasValue(1);
  }

  @Test
  void aFailedLoadIsRememberedWithItsReason() {
    AtomicInteger loads = new AtomicInteger();
    LoadedOnce<String> binding =
        new LoadedOnce<>(
            () -> {
              loads.incrementAndGet();
              throw new IllegalStateException("libexample.so.1 was not found");
            });

    assertThatThrownBy(binding::get).hasMessage("libexample.so.1 was not found");
    assertThatThrownBy(binding::get).hasMessage("libexample.so.1 was not found");
    assertThat(loads).hasValue(1);
  }
}
