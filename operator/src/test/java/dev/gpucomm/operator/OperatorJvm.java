package dev.gpucomm.operator;

import java.util.List;

/** The JVM options of the operator image, as the scale measurement runs the operator. */
final class OperatorJvm {
  /** quarkus.jib.jvm-additional-arguments of the operator image. */
  static final List<String> IMAGE_OPTIONS =
      List.of(
          "-XX:+UseSerialGC",
          "-XX:MaxRAMPercentage=50",
          "-XX:MinHeapFreeRatio=10",
          "-XX:MaxHeapFreeRatio=30",
          "-XX:TieredStopAtLevel=1",
          "-Xss512k",
          "--sun-misc-unsafe-memory-access=allow");

  /**
   * Outside a container the JVM sees the host's memory; this stands for the chart's 512Mi limit.
   */
  static final String CHART_MEMORY_LIMIT = "-XX:MaxRAM=512m";

  static final List<String> OPTIONS =
      java.util.stream.Stream.concat(
              IMAGE_OPTIONS.stream(), java.util.stream.Stream.of(CHART_MEMORY_LIMIT))
          .toList();

  private OperatorJvm() {}
}
