package dev.gpucomm.operator;

import dev.gpucomm.api.v1alpha1.CommJob;
import dev.gpucomm.api.v1alpha1.CommJobDefaults;
import dev.gpucomm.api.v1alpha1.CommJobSpec;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.UnreadablePodTemplate;
import dev.gpucomm.api.v1alpha1.validation.CommJobValidator;
import dev.gpucomm.api.v1alpha1.validation.SpecProblem;
import io.fabric8.kubernetes.api.model.Quantity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Checks a CommJob before the operator creates anything for it: the API's {@link CommJobValidator}
 * for jobs run as pods, then what only the cluster knows (the pod template overlay, the operator's
 * default /dev/shm size, the name of the tuning table's ConfigMap). A job with problems gets reason
 * {@code InvalidSpec} and no pods.
 */
@ApplicationScoped
public class SpecValidator {
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  private final TemplateOverlayValidator templateValidator;
  private final OperatorConfig config;
  private final RankPodDefaults defaults;

  @Inject
  public SpecValidator(TemplateOverlayValidator templateValidator, OperatorConfig config) {
    this.templateValidator = templateValidator;
    this.config = config;
    this.defaults = RankPodDefaults.of(config);
  }

  /** All problems of the job, each "field.path: problem", in the order of its fields. */
  public List<String> problems(CommJob job) {
    List<String> problems = new ArrayList<>();
    for (SpecProblem problem : CommJobValidator.validate(job)) {
      problems.add(problem.toString());
    }
    CommJobSpec spec = job.getSpec();
    if (spec == null) {
      return problems;
    }
    checkTuningRef(spec.getHeuristic(), problems);
    int ranksPerPod =
        Objects.requireNonNullElse(spec.getRanksPerPod(), CommJobDefaults.RANKS_PER_POD);
    long sharedMemoryBytes = sharedMemoryBytes(spec, problems);
    if (spec.getTemplate() instanceof UnreadablePodTemplate unreadable) {
      problems.add(unreadable.problemUnder(TemplateOverlayValidator.FIELD));
    } else {
      List<String> own =
          templateValidator.problems(spec.getTemplate(), ranksPerPod, sharedMemoryBytes);
      problems.addAll(own);
      // the cluster's template was checked when the operator started; what the two make together
      // is checked against each job (a memory limit against its /dev/shm, a GPU count)
      if (defaults.isSet()) {
        for (String problem :
            templateValidator.problems(
                defaults.under(spec.getTemplate()), ranksPerPod, sharedMemoryBytes)) {
          // the job's own problems again, at other places in the merged lists, are told once
          if (own.stream()
              .map(SpecValidator::withoutIndices)
              .noneMatch(withoutIndices(problem)::equals)) {
            problems.add(problem + " (with " + RankPodDefaults.FIELD + " laid under it)");
          }
        }
      }
    }
    return problems;
  }

  private static String withoutIndices(String problem) {
    return problem.replaceAll("\\[\\d+\\]", "[]");
  }

  /** In a cluster the tuning table is a ConfigMap (on one host, a file). */
  private static void checkTuningRef(Heuristic heuristic, List<String> problems) {
    String ref = heuristic == null ? null : heuristic.getTuningRef();
    if (ref != null && (ref.length() > 253 || !DNS_SUBDOMAIN.matcher(ref).matches())) {
      problems.add(
          "spec.heuristic.tuningRef: '%s' is not a valid ConfigMap name (lowercase letters, digits,"
                  .formatted(ref)
              + " '-' and '.')");
    }
  }

  /**
   * The /dev/shm size in bytes, or -1 when it is not usable: the job's own size was checked by the
   * API's validator; the operator's default for jobs that name none is checked here.
   */
  private long sharedMemoryBytes(CommJobSpec spec, List<String> problems) {
    boolean named = spec.getSharedMemorySize() != null;
    String text = named ? spec.getSharedMemorySize() : config.defaultSharedMemorySize();
    BigDecimal bytes;
    try {
      bytes = Quantity.getAmountInBytes(new Quantity(text));
    } catch (IllegalArgumentException | ArithmeticException e) {
      if (!named) {
        problems.add(
            "spec.sharedMemorySize: the operator's default '%s' is not a quantity".formatted(text));
      }
      return -1;
    }
    if (bytes.compareTo(BigDecimal.valueOf(CommJobValidator.MIN_SHARED_MEMORY_BYTES)) < 0
        || bytes.compareTo(BigDecimal.valueOf(CommJobValidator.MAX_SHARED_MEMORY_BYTES)) > 0) {
      if (!named) {
        problems.add(
            "spec.sharedMemorySize: the operator's default %s is outside 64Mi..1Ti"
                .formatted(text));
      }
      return -1;
    }
    return bytes.longValue();
  }
}
