package dev.gpucomm.runtime.rank;

import dev.gpucomm.runtime.files.FileProblem;
import dev.gpucomm.runtime.heuristic.TuningTable;
import dev.gpucomm.runtime.heuristic.TuningTableJson;
import dev.gpucomm.runtime.kube.ConfigMapReader;
import dev.gpucomm.runtime.kube.ResultsConfigMapPublisher;
import dev.gpucomm.runtime.report.ReportFiles;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * Where a rank runs, as far as results are concerned: on a host (report files in a directory,
 * tuning tables are files) or in a cluster (results go to ConfigMap {@code <job>-results}, tuning
 * tables are ConfigMaps).
 */
public sealed interface Site {
  /** ConfigMap key (and file name) of a tuning table. */
  String TUNING_KEY = "tuning.json";

  /** Publishes rank 0's files. */
  void publish(Map<String, String> files);

  /** Resolves {@code spec.heuristic.tuningRef} to a table. */
  Function<String, TuningTable> tuningTables();

  /** What a reader is told about where the results went. */
  String describe();

  /** A local run: files in {@code directory} (which the launcher moves into place). */
  record Directory(Path directory) implements Site {
    @Override
    public void publish(Map<String, String> files) {
      try {
        Files.createDirectories(directory);
        for (Map.Entry<String, String> file : files.entrySet()) {
          Files.writeString(directory.resolve(file.getKey()), file.getValue());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot write the report into " + directory + ": " + FileProblem.of(directory, e), e);
      }
    }

    @Override
    public Function<String, TuningTable> tuningTables() {
      return TuningTableJson.fileLoader();
    }

    @Override
    public String describe() {
      return directory.toString();
    }
  }

  /**
   * A pod: rank 0 merges the files into ConfigMap {@code <job>-results}, which the operator made.
   */
  record Cluster(KubernetesClient client, String namespace, String job, OptionalInt restartAttempt)
      implements Site {
    public String resultsConfigMap() {
      return ResultsConfigMapPublisher.configMapName(job);
    }

    /** Everything but the CSV, which repeats report.json (a ConfigMap holds at most 1 MiB). */
    @Override
    public void publish(Map<String, String> files) {
      Map<String, String> data = new LinkedHashMap<>(files);
      data.remove(ReportFiles.CSV);
      new ResultsConfigMapPublisher(client, namespace, job, restartAttempt).publish(data);
    }

    /** A tuning reference names a ConfigMap (e.g. a tune job's results) holding tuning.json. */
    @Override
    public Function<String, TuningTable> tuningTables() {
      return name -> {
        String json =
            new ConfigMapReader(client, namespace)
                .data(name)
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "ConfigMap " + namespace + "/" + name + " not found"))
                .get(TUNING_KEY);
        if (json == null) {
          throw new IllegalArgumentException(
              "ConfigMap " + namespace + "/" + name + " has no " + TUNING_KEY);
        }
        return TuningTableJson.parse(json, "ConfigMap " + name + " " + TUNING_KEY);
      };
    }

    @Override
    public String describe() {
      return "ConfigMap " + namespace + "/" + resultsConfigMap();
    }
  }

  /** A rank started by hand with neither a report directory nor a cluster: results are printed. */
  record Terminal() implements Site {
    @Override
    public void publish(Map<String, String> files) {}

    @Override
    public Function<String, TuningTable> tuningTables() {
      return TuningTableJson.fileLoader();
    }

    @Override
    public String describe() {
      return "standard output only (set GPUCOMM_REPORT_DIR to keep the files)";
    }
  }
}
