package dev.gpucomm.api.v1alpha1.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Immutable copies of report matrices, which hold nulls where nothing was measured. */
final class Matrices {
  private Matrices() {}

  static List<List<Double>> copy(List<List<Double>> rows) {
    if (rows == null) {
      return List.of();
    }
    List<List<Double>> copy = new ArrayList<>();
    for (List<Double> row : rows) {
      copy.add(copyRow(row));
    }
    return Collections.unmodifiableList(copy);
  }

  static List<Double> copyRow(List<Double> row) {
    return row == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(row));
  }
}
