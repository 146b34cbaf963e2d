package dev.gpucomm.runtime.spec;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Baseline;
import dev.gpucomm.api.v1alpha1.BenchmarkSpec;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import dev.gpucomm.api.v1alpha1.ProgramSpec;
import dev.gpucomm.api.v1alpha1.Shape;
import dev.gpucomm.api.v1alpha1.TuneSpec;
import dev.gpucomm.api.v1alpha1.Workload;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a defaulted CommJob against everything the CRD's schema and CEL rules enforce, plus what
 * only the runtime knows (sizes the kernels can move, names it turns into files and objects). The
 * first problem found, in document order, is thrown as an {@link InvalidJobException}.
 */
public final class JobValidator {

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern QUANTITY =
      Pattern.compile("^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$");
  private static final Pattern CONFIG_MAP_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  private final String source;

  private JobValidator(String source) {
    this.source = source;
  }

  /** Throws the first problem of {@code job}; {@code source} names the file in the message. */
  public static void validate(CommJob job, String source) {
    new JobValidator(source).check(job);
  }

  private void check(CommJob job) {
    if (!CommJob.API_VERSION.equals(job.getApiVersion())) {
      fail(
          "apiVersion",
          job.getApiVersion() == null
              ? "required (" + CommJob.API_VERSION + ")"
              : "unknown value '"
                  + job.getApiVersion()
                  + "' (expected "
                  + CommJob.API_VERSION
                  + ")");
    }
    if (!"CommJob".equals(job.getKind())) {
      fail(
          "kind",
          job.getKind() == null
              ? "required (CommJob)"
              : "unknown value '" + job.getKind() + "' (expected CommJob)");
    }
    String name = job.getMetadata() == null ? null : job.getMetadata().getName();
    if (name == null || name.isEmpty()) {
      fail("metadata.name", "required");
    }
    if (!DNS_LABEL.matcher(name).matches() || name.length() > CommJob.MAX_NAME_LENGTH) {
      fail(
          "metadata.name",
          "'"
              + name
              + "' is not a valid job name (lower-case letters, digits and '-', starting and"
              + " ending with a letter or digit, at most "
              + CommJob.MAX_NAME_LENGTH
              + " characters)");
    }
    CommJobSpec spec = job.getSpec();
    if (spec == null) {
      fail("spec", "required");
    }
    checkSpec(spec);
  }

  private void checkSpec(CommJobSpec spec) {
    Integer worldSize = required("spec.worldSize", spec.getWorldSize());
    range("spec.worldSize", worldSize, 1, 4096);
    Integer ranksPerPod = required("spec.ranksPerPod", spec.getRanksPerPod());
    range("spec.ranksPerPod", ranksPerPod, 1, 16);
    if (worldSize % ranksPerPod != 0) {
      fail(
          "spec.worldSize",
          worldSize + " is not a multiple of spec.ranksPerPod (" + ranksPerPod + ")");
    }
    required("spec.device", spec.getDevice());
    Workload workload = required("spec.workload", spec.getWorkload());
    checkWorkload(workload);
    checkHeuristic(required("spec.heuristic", spec.getHeuristic()));
    range(
        "spec.timeoutSeconds", required("spec.timeoutSeconds", spec.getTimeoutSeconds()), 1, 86400);
    if (spec.getBaseline() != null) {
      checkBaseline(spec.getBaseline());
    }
    String shm = spec.getSharedMemorySize();
    if (shm != null && !QUANTITY.matcher(shm).matches()) {
      fail("spec.sharedMemorySize", "'" + shm + "' is not a quantity (e.g. 8Gi, 512Mi)");
    }
  }

  private void checkWorkload(Workload workload) {
    switch (required("spec.workload.kind", workload.getKind())) {
      case BENCHMARK ->
          checkBenchmark(
              required(
                  "spec.workload.benchmark",
                  workload.getBenchmark(),
                  "required when spec.workload.kind is benchmark"));
      case TUNE ->
          checkTune(
              required(
                  "spec.workload.tune",
                  workload.getTune(),
                  "required when spec.workload.kind is tune"));
      case PROGRAM ->
          checkProgram(
              required(
                  "spec.workload.program",
                  workload.getProgram(),
                  "required when spec.workload.kind is program"));
    }
  }

  private void checkBenchmark(BenchmarkSpec benchmark) {
    String at = "spec.workload.benchmark";
    Collective collective = required(at + ".collective", benchmark.getCollective());
    DType dtype = required(at + ".dtype", benchmark.getDtype());
    int hidden =
        range(
            at + ".hiddenSize",
            required(at + ".hiddenSize", benchmark.getHiddenSize()),
            1,
            1048576);
    if ((benchmark.getTokens() == null) == (benchmark.getSizes() == null)) {
      fail(at, "needs exactly one of tokens and sizes");
    }
    checkMessageSizes(at, benchmark.getTokens(), benchmark.getSizes(), hidden, dtype);
    List<Algorithm> algorithms = benchmark.getAlgorithms();
    if (algorithms != null) {
      listSize(at + ".algorithms", algorithms, 1, 8);
      noNullsOrDuplicates(at + ".algorithms", algorithms);
    }
    range(
        at + ".warmupIterations",
        required(at + ".warmupIterations", benchmark.getWarmupIterations()),
        0,
        100000);
    range(at + ".iterations", required(at + ".iterations", benchmark.getIterations()), 1, 1000000);
    required(at + ".cudaGraph", benchmark.getCudaGraph());
    if (required(at + ".inPlace", benchmark.getInPlace())) {
      checkInPlace(at, collective, algorithms);
    }
  }

  /** In place is all-reduce with the output over the input, by the algorithms that allow it. */
  private void checkInPlace(String at, Collective collective, List<Algorithm> algorithms) {
    if (collective != Collective.ALLREDUCE) {
      fail(
          at + ".inPlace",
          "applies to allreduce only ("
              + collective.wireName()
              + "'s output is not the shape of its input)");
    }
    for (int i = 0; algorithms != null && i < algorithms.size(); i++) {
      if (!algorithms.get(i).mayRunInPlace()) {
        fail(
            at + ".algorithms[" + i + "]",
            algorithms.get(i).wireName()
                + " does not run in place (a rank's peers read its input while it would overwrite"
                + " it); with inPlace use nccl, ring or auto");
      }
    }
  }

  private void checkTune(TuneSpec tune) {
    String at = "spec.workload.tune";
    DType dtype = required(at + ".dtype", tune.getDtype());
    int hidden =
        range(at + ".hiddenSize", required(at + ".hiddenSize", tune.getHiddenSize()), 1, 1048576);
    if (tune.getTokens() != null && tune.getSizes() != null) {
      fail(at, "takes tokens or sizes, not both");
    }
    checkMessageSizes(at, tune.getTokens(), tune.getSizes(), hidden, dtype);
    List<Algorithm> algorithms = tune.getAlgorithms();
    if (algorithms != null) {
      listSize(at + ".algorithms", algorithms, 1, 8);
      noNullsOrDuplicates(at + ".algorithms", algorithms);
      for (int i = 0; i < algorithms.size(); i++) {
        if (algorithms.get(i) == Algorithm.AUTO) {
          fail(
              at + ".algorithms[" + i + "]",
              "auto is not a candidate (tune measures the algorithms auto chooses from)");
        }
      }
    }
    range(
        at + ".warmupIterations",
        required(at + ".warmupIterations", tune.getWarmupIterations()),
        0,
        100000);
    range(at + ".iterations", required(at + ".iterations", tune.getIterations()), 1, 1000000);
    String table = tune.getTableName();
    if (table != null && (!CONFIG_MAP_NAME.matcher(table).matches() || table.length() > 253)) {
      fail(at + ".tableName", "'" + table + "' is not a valid ConfigMap name");
    }
  }

  private void checkProgram(ProgramSpec program) {
    String at = "spec.workload.program";
    required(at + ".name", program.getName());
    Shape shape = program.getShape();
    if (shape != null) {
      positive(at + ".shape.m", shape.getM());
      positive(at + ".shape.n", shape.getN());
      positive(at + ".shape.k", shape.getK());
    }
    range(at + ".chunks", required(at + ".chunks", program.getChunks()), 1, 64);
    if (program.getPasses() != null) {
      noNullsOrDuplicates(at + ".passes", program.getPasses());
    }
    range(at + ".streams", required(at + ".streams", program.getStreams()), 1, 32);
    required(at + ".dtype", program.getDtype());
    required(at + ".backend", program.getBackend());
    range(
        at + ".warmupIterations",
        required(at + ".warmupIterations", program.getWarmupIterations()),
        0,
        10000);
    range(at + ".iterations", required(at + ".iterations", program.getIterations()), 1, 100000);
    range(
        at + ".communicationSMs",
        required(at + ".communicationSMs", program.getCommunicationSMs()),
        0,
        160);
    required(at + ".serializeMatmuls", program.getSerializeMatmuls());
  }

  private void checkHeuristic(Heuristic heuristic) {
    HeuristicName name = required("spec.heuristic.name", heuristic.getName());
    if (name == HeuristicName.FIXED) {
      Algorithm fixed =
          required(
              "spec.heuristic.fixedAlgorithm",
              heuristic.getFixedAlgorithm(),
              "required when spec.heuristic.name is fixed");
      if (fixed == Algorithm.AUTO) {
        fail("spec.heuristic.fixedAlgorithm", "auto cannot be fixed (name an algorithm)");
      }
    }
    if (name == HeuristicName.MEASURED) {
      String ref = heuristic.getTuningRef();
      if (ref == null || ref.isBlank()) {
        fail("spec.heuristic.tuningRef", "required when spec.heuristic.name is measured");
      }
    }
  }

  private void checkBaseline(Baseline baseline) {
    String ref = baseline.getConfigMapRef();
    if (ref == null || ref.isBlank()) {
      fail("spec.baseline.configMapRef", "required");
    }
    Double slowdown =
        required("spec.baseline.maxSlowdownPercent", baseline.getMaxSlowdownPercent());
    if (!(slowdown >= 0 && slowdown <= 1000)) {
      fail("spec.baseline.maxSlowdownPercent", slowdown + " is outside 0..1000");
    }
  }

  private void checkMessageSizes(
      String at, List<Integer> tokens, List<Long> sizes, int hiddenSize, DType dtype) {
    if (tokens != null) {
      listSize(at + ".tokens", tokens, 1, 64);
      for (int i = 0; i < tokens.size(); i++) {
        String field = at + ".tokens[" + i + "]";
        Integer count = required(field, tokens.get(i));
        if (count < 1) {
          fail(field, count + " is below the minimum 1");
        }
        long bytes = (long) count * hiddenSize * dtype.bytes();
        if (bytes % CommJob.MESSAGE_ALIGNMENT_BYTES != 0) {
          fail(
              field,
              count
                  + " tokens x hiddenSize "
                  + hiddenSize
                  + " x "
                  + dtype.bytes()
                  + " bytes ("
                  + dtype
                  + ") = "
                  + bytes
                  + " bytes is not a multiple of "
                  + CommJob.MESSAGE_ALIGNMENT_BYTES);
        }
      }
    }
    if (sizes != null) {
      listSize(at + ".sizes", sizes, 1, 64);
      for (int i = 0; i < sizes.size(); i++) {
        String field = at + ".sizes[" + i + "]";
        Long bytes = required(field, sizes.get(i));
        if (bytes < CommJob.MESSAGE_ALIGNMENT_BYTES) {
          fail(field, bytes + " bytes is below the minimum " + CommJob.MESSAGE_ALIGNMENT_BYTES);
        }
        if (bytes % CommJob.MESSAGE_ALIGNMENT_BYTES != 0) {
          fail(field, bytes + " bytes is not a multiple of " + CommJob.MESSAGE_ALIGNMENT_BYTES);
        }
      }
    }
  }

  private <T> T required(String field, T value) {
    return required(field, value, "required");
  }

  private <T> T required(String field, T value, String problem) {
    if (value == null) {
      fail(field, problem);
    }
    return value;
  }

  private int range(String field, int value, int min, int max) {
    if (value < min) {
      fail(field, value + " is below the minimum " + min);
    }
    if (value > max) {
      fail(field, value + " is above the maximum " + max);
    }
    return value;
  }

  private void positive(String field, Long value) {
    if (value != null && value < 1) {
      fail(field, value + " is below the minimum 1");
    }
  }

  private void listSize(String field, List<?> list, int min, int max) {
    if (list.size() < min) {
      fail(field, "needs at least " + min + " item" + (min == 1 ? "" : "s"));
    }
    if (list.size() > max) {
      fail(field, list.size() + " items is above the maximum " + max);
    }
  }

  private void noNullsOrDuplicates(String field, List<?> list) {
    Set<Object> seen = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      Object item = required(field + "[" + i + "]", list.get(i));
      if (!seen.add(item)) {
        fail(field + "[" + i + "]", "'" + item + "' is listed twice");
      }
    }
  }

  private void fail(String field, String problem) {
    throw new InvalidJobException(source, field, problem);
  }
}
