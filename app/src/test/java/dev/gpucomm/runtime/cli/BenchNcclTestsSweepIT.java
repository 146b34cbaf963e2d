package dev.gpucomm.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sweep given in nccl-tests' flags runs nccl-tests' sizes on rank processes: all-reduce of bf16
 * on two CPU ranks from 8 bytes by a factor of 4 to 64 KiB, one-shot and two-shot, with the sizes
 * below one 16-byte vector said and left out.
 */
class BenchNcclTestsSweepIT {
  @TempDir Path dir;

  @Test
  void aSweepInNcclTestsFlagsMeasuresNcclTestsSizes() throws Exception {
    Path out = dir.resolve("reports").resolve("nccl-flags");

    CliRun run =
        CliRun.of(
            Map.of(),
            "bench",
            "--device",
            "cpu",
            "--world",
            "2",
            "--algorithms",
            "oneshot,twoshot",
            "-b",
            "8",
            "-e",
            "64K",
            "-f",
            "4",
            "-n",
            "3",
            "-w",
            "1",
            "-c",
            "1",
            "--out",
            out.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err().lines().toList())
        .as("said once, after the sweep")
        .last()
        .isEqualTo(
            "gpucomm bench: not measured: 8 B (8 B per rank is not a whole number of 16-byte"
                + " vectors)");
    JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
    List<Long> sizes = new ArrayList<>();
    report.path("sizes").forEach(size -> sizes.add(size.path("bytes").asLong()));
    // nccl-tests: 8, 32, 128, ..., 32768 (the next, 131072, is above 64 KiB).
    assertThat(sizes).containsExactly(32L, 128L, 512L, 2048L, 8192L, 32768L);
    assertThat(report.path("sizes").get(0).path("measurements")).hasSize(2);
    assertThat(report.path("sizes").get(0).path("measurements").get(0).path("iterations").asInt())
        .isEqualTo(3);
  }
}
