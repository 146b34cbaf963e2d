package dev.gpucomm.runtime.nccl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.fabric.FabricObservation;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Whose NCCL log it is: gpucomm's own file, unless the user configured NCCL's log. */
class NcclDebugLogTest {
  @Test
  void aUserWhoSetNcclDebugKeepsTheLogAndTheTransportsGoUnrecorded() {
    FabricObservation seen = NcclDebugLog.chooseAndSet(Map.of("NCCL_DEBUG", "WARN")).read();
    assertThat(seen.known()).isFalse();
    assertThat(seen.summary()).contains("NCCL_DEBUG is set in the environment");
  }

  @Test
  void aUserWhoSetNcclDebugFileKeepsItToo() {
    FabricObservation seen =
        NcclDebugLog.chooseAndSet(Map.of("NCCL_DEBUG_FILE", "/tmp/mine.%h.%p")).read();
    assertThat(seen.summary()).contains("NCCL_DEBUG_FILE is set");
  }
}
