package dev.gpucomm.api.v1alpha1.report;

/** Which of a measurement's medians a table or plot shows. */
public enum TimeBasis {
  /** The CUDA-graph replay median where one was measured, the eager median otherwise. */
  GRAPH_WHERE_MEASURED,
  /** The eager median: one launch per call, host overhead included. */
  EAGER;

  /** The median of {@code measurement} on this basis, in microseconds. */
  public double micros(Measurement measurement) {
    return switch (this) {
      case GRAPH_WHERE_MEASURED ->
          measurement.graphMicros() != null ? measurement.graphMicros() : measurement.eagerMicros();
      case EAGER -> measurement.eagerMicros();
    };
  }

  /** Whether the shown time of {@code measurement} came from eager calls. */
  public boolean showsEager(Measurement measurement) {
    return this == EAGER || measurement.graphMicros() == null;
  }
}
