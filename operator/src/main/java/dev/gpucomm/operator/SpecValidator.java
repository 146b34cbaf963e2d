package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Baseline;
import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import dev.gpucomm.api.v1alpha1.WorkloadKind;
import io.fabric8.kubernetes.api.model.Quantity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Checks what the CRD's schema and CEL rules cannot (or what a cluster without them lets through),
 * each problem as one line naming the field; a job with problems gets reason {@code InvalidSpec}
 * and no pods.
 */
@ApplicationScoped
public class SpecValidator {
  static final long MIN_SHARED_MEMORY_BYTES = 64L << 20;

  /**
   * A DNS-1035 label: the job's name also names its headless Service (a DNS-1035 label) and is the
   * pods' subdomain (a DNS-1123 label), stricter than the DNS subdomain a CommJob name may be.
   */
  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z]([-a-z0-9]*[a-z0-9])?$");

  private final TemplateOverlayValidator templateValidator;
  private final OperatorConfig config;

  @Inject
  public SpecValidator(TemplateOverlayValidator templateValidator, OperatorConfig config) {
    this.templateValidator = templateValidator;
    this.config = config;
  }

  /** All problems of the job's spec, in the order of its fields; empty when it may run. */
  public List<String> problems(CommJob job) {
    List<String> problems = new ArrayList<>();
    CommJobSpec spec = job.getSpec();
    if (spec == null) {
      problems.add("spec is required");
      return problems;
    }
    int ranksPerPod =
        Objects.requireNonNullElse(spec.getRanksPerPod(), JobLayout.DEFAULT_RANKS_PER_POD);
    checkName(job.getMetadata().getName(), problems);
    checkWorld(spec, ranksPerPod, problems);
    FieldChecks.inRange(problems, "spec.timeoutSeconds", spec.getTimeoutSeconds(), 1, 86400);
    DeviceKind device = Objects.requireNonNullElse(spec.getDevice(), DeviceKind.CUDA);
    WorkloadValidator.check(spec, podSpan(spec, ranksPerPod), device, problems);
    checkHeuristic(spec.getHeuristic(), problems);
    checkBaseline(spec, problems);
    long sharedMemoryBytes = checkSharedMemory(spec, problems);
    problems.addAll(templateValidator.problems(spec.getTemplate(), ranksPerPod, sharedMemoryBytes));
    return problems;
  }

  private static void checkName(String name, List<String> problems) {
    if (!DNS_LABEL.matcher(name).matches()) {
      problems.add(
          ("metadata.name \"%s\" must start with a lowercase letter and hold only lowercase letters,"
                  + " digits and '-': it also names the job's headless Service")
              .formatted(name));
    }
    // 52 also keeps every pod's hostname, <name>-<index> with at most 4096 pods, within 63
    // the ranks' own limit (their derived names, e.g. <job>-reporter, must stay labels)
    if (name.length() > CommJob.MAX_NAME_LENGTH) {
      problems.add(
          "metadata.name is too long: %d characters, at most %d (the ranks refuse longer names)"
              .formatted(name.length(), CommJob.MAX_NAME_LENGTH));
    }
  }

  private static void checkWorld(CommJobSpec spec, int ranksPerPod, List<String> problems) {
    if (spec.getWorldSize() == null) {
      problems.add("spec.worldSize is required");
    } else {
      FieldChecks.inRange(problems, "spec.worldSize", spec.getWorldSize(), 1, 4096);
    }
    boolean ranksPerPodInRange =
        FieldChecks.inRange(problems, "spec.ranksPerPod", spec.getRanksPerPod(), 1, 16);
    if (spec.getWorldSize() != null
        && spec.getWorldSize() > 0
        && ranksPerPodInRange
        && spec.getWorldSize() % ranksPerPod != 0) {
      problems.add(
          "spec.worldSize (%d) must be a multiple of spec.ranksPerPod (%d)"
              .formatted(spec.getWorldSize(), ranksPerPod));
    }
  }

  /**
   * "spec.worldSize (16) spans 2 pods of spec.ranksPerPod (8)" when the ranks do not all share one
   * pod (and so cannot all exchange buffers over IPC), null when they do.
   */
  private static String podSpan(CommJobSpec spec, int ranksPerPod) {
    Integer worldSize = spec.getWorldSize();
    if (worldSize == null || ranksPerPod <= 0 || worldSize <= ranksPerPod) {
      return null;
    }
    return "spec.worldSize (%d) spans %d pods of spec.ranksPerPod (%d)"
        .formatted(worldSize, (worldSize + ranksPerPod - 1) / ranksPerPod, ranksPerPod);
  }

  private static void checkHeuristic(Heuristic heuristic, List<String> problems) {
    if (heuristic == null) {
      return;
    }
    HeuristicName name = Objects.requireNonNullElse(heuristic.getName(), HeuristicName.TRTLLM);
    if (name == HeuristicName.FIXED) {
      if (heuristic.getFixedAlgorithm() == null) {
        problems.add("spec.heuristic.fixedAlgorithm is required when spec.heuristic.name is fixed");
      } else if (heuristic.getFixedAlgorithm() == Algorithm.AUTO) {
        problems.add(
            "spec.heuristic.fixedAlgorithm cannot be auto: auto is what asks the heuristic");
      }
    } else if (heuristic.getFixedAlgorithm() != null) {
      problems.add(
          "spec.heuristic.fixedAlgorithm is set but spec.heuristic.name is %s (only fixed uses it)"
              .formatted(name.wireName()));
    }
    if (name == HeuristicName.MEASURED && heuristic.getTuningRef() == null) {
      problems.add("spec.heuristic.tuningRef is required when spec.heuristic.name is measured");
    } else if (heuristic.getTuningRef() != null) {
      FieldChecks.checkObjectName("spec.heuristic.tuningRef", heuristic.getTuningRef(), problems);
    }
  }

  private static void checkBaseline(CommJobSpec spec, List<String> problems) {
    Baseline baseline = spec.getBaseline();
    if (baseline == null) {
      return;
    }
    if (baseline.getConfigMapRef() == null) {
      problems.add("spec.baseline.configMapRef is required");
    } else {
      FieldChecks.checkObjectName(
          "spec.baseline.configMapRef", baseline.getConfigMapRef(), problems);
    }
    Double slowdown = baseline.getMaxSlowdownPercent();
    if (slowdown != null && !(slowdown >= 0 && slowdown <= 1000)) {
      problems.add("spec.baseline.maxSlowdownPercent must be between 0 and 1000, not " + slowdown);
    }
    if (spec.getWorkload() != null
        && spec.getWorkload().getKind() != null
        && spec.getWorkload().getKind() != WorkloadKind.BENCHMARK) {
      problems.add(
          "spec.baseline compares benchmark reports, but spec.workload.kind is "
              + spec.getWorkload().getKind().wireName());
    }
  }

  /** Returns the size in bytes, or -1 when it is not a usable quantity. */
  private long checkSharedMemory(CommJobSpec spec, List<String> problems) {
    String text =
        Objects.requireNonNullElse(spec.getSharedMemorySize(), config.defaultSharedMemorySize());
    BigDecimal bytes;
    try {
      bytes = Quantity.getAmountInBytes(new Quantity(text));
    } catch (IllegalArgumentException | ArithmeticException e) {
      problems.add(
          "spec.sharedMemorySize \"%s\" is not a quantity (e.g. 8Gi, 512Mi)".formatted(text));
      return -1;
    }
    if (bytes.compareTo(BigDecimal.valueOf(MIN_SHARED_MEMORY_BYTES)) < 0) {
      problems.add(
          "spec.sharedMemorySize (%s) must be at least 64Mi, the container default NCCL already outgrows"
              .formatted(text));
      return -1;
    }
    return bytes.longValue();
  }
}
