package dev.gpucomm.runtime.heuristic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TuningTableFileModeTest {
  @TempDir Path folder;

  @Test
  void aWrittenTuningTableIsReadableByOthersLikeTheReportsBesideIt() throws Exception {
    TuningTable table =
        TuningTable.fromMeasurements(
            "lab", Collective.ALLREDUCE, TuningTableTest.sweep(2, DType.BF16));
    Path file = folder.resolve("tuning.json");

    TuningTableJson.write(table, file);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r--r--");
  }
}
