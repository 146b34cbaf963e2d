package dev.gpucomm.runtime.device.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedMemoryFilesTest {
  @TempDir Path shm;

  @Test
  void aStagingMappingIsTheSameKindOfSegmentAsADeviceBuffer() {
    try (Arena arena = Arena.ofShared()) {
      SharedMemoryFiles files = new SharedMemoryFiles(shm, "sweep", 0);
      SharedMemoryFiles.MappedFile own = files.create(4096, arena);
      SharedMemoryFiles.MappedFile peer =
          SharedMemoryFiles.open(SharedMemoryFiles.handleBytesOf(own.path()), arena);
      MemorySegment deviceBuffer = arena.allocate(4096);

      // The element loops stay fast only while they see a single segment class.
      assertThat(own.memory().getClass()).isEqualTo(deviceBuffer.getClass());
      assertThat(peer.memory().getClass()).isEqualTo(deviceBuffer.getClass());
      assertThat(own.memory().byteSize()).isEqualTo(4096);

      own.memory().set(ValueLayout.JAVA_INT, 64, 0x5eed);
      assertThat(peer.memory().get(ValueLayout.JAVA_INT, 64)).isEqualTo(0x5eed);
    }
  }
}
