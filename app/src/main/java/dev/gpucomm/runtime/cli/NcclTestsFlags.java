package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.validation.CommJobValidator;
import dev.gpucomm.runtime.bench.NcclTestsSizes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * nccl-tests' sweep flags on {@code gpucomm bench}, with nccl-tests' meaning, so that a command
 * line of {@code all_reduce_perf} carries over: {@code -b 8 -e 8G -f 2 -n 200 -w 20 -c 1}.
 */
final class NcclTestsFlags {
  /** A message here moves whole 16-byte vectors (CommJob.MESSAGE_ALIGNMENT_BYTES). */
  private static final long ALIGNMENT = 16;

  /** The most sizes one job sweeps (the validator's limit on spec.workload.benchmark.sizes). */
  private static final int MAX_SIZES = 64;

  /**
   * Sizes the sweep may walk, those it leaves out (not whole vectors, above the buffer limit)
   * included: bounds the walk before the sizes are kept, so a sweep of half a billion steps is
   * refused at once instead of filling the heap.
   */
  private static final int MAX_WALKED_SIZES = 4096;

  @Option(
      names = {"-b", "--min-bytes"},
      paramLabel = "SIZE",
      converter = ByteSizeConverter.class,
      description = "nccl-tests: first size, e.g. 8 or 1M (default 32M)")
  Long minBytes;

  @Option(
      names = {"-e", "--max-bytes"},
      paramLabel = "SIZE",
      converter = ByteSizeConverter.class,
      description = "nccl-tests: last size at most, e.g. 8G (default 32M)")
  Long maxBytes;

  @Option(
      names = {"-f", "--step-factor"},
      paramLabel = "N",
      description = "nccl-tests: multiply the size by N per step (default 1: add -i)")
  Long stepFactor;

  @Option(
      names = {"-i", "--step-bytes"},
      paramLabel = "SIZE",
      converter = ByteSizeConverter.class,
      description = "nccl-tests: add SIZE per step when -f is 1 (default 1M)")
  Long stepBytes;

  @Option(
      names = {"-n", "--iters"},
      paramLabel = "N",
      description = "nccl-tests: timed calls per point (as --iterations)")
  Integer iters;

  @Option(
      names = {"-w", "--warmup-iters"},
      paramLabel = "N",
      description = "nccl-tests: untimed calls per point (as --warmup)")
  Integer warmupIters;

  @Option(
      names = {"-c", "--check"},
      paramLabel = "N",
      description = "nccl-tests: check results (every point is checked; 0 is refused)")
  Integer check;

  /**
   * Refuses {@code -c 0}: every point's results are checked here (before and after its timed
   * calls), and a sweep that skipped the check would report figures nobody validated.
   */
  void requireCheck(CommandSpec spec) {
    if (check != null && check < 1) {
      throw new OptionValueException(
          spec, "-c", "gpucomm checks every point's results; give 1 or more (got " + check + ")");
    }
  }

  /** True when a size flag (-b, -e, -f, -i) was given. */
  boolean sweepsSizes() {
    return minBytes != null || maxBytes != null || stepFactor != null || stepBytes != null;
  }

  /** The sweep's flag name for a conflict message: the first one given. */
  String firstSizeFlag() {
    if (minBytes != null) {
      return "-b";
    }
    if (maxBytes != null) {
      return "-e";
    }
    return stepFactor != null ? "-f" : "-i";
  }

  /**
   * The messages per rank of nccl-tests' sizes for this collective, data type and world, smallest
   * first; sizes that round to a message this runtime cannot move (below or off the 16-byte vector)
   * are left out and named in {@code skipped}.
   *
   * @throws OptionValueException naming the flag when the flags make no sweep, or too long a one
   */
  List<Long> bytesPerRank(
      CommandSpec spec, Collective collective, DType dtype, int worldSize, List<String> skipped) {
    NcclTestsSizes sweep;
    try {
      sweep =
          new NcclTestsSizes(
              minBytes != null ? minBytes : NcclTestsSizes.DEFAULT_MIN_BYTES,
              maxBytes != null ? maxBytes : NcclTestsSizes.DEFAULT_MAX_BYTES,
              stepFactor != null ? stepFactor : NcclTestsSizes.DEFAULT_STEP_FACTOR,
              stepBytes != null ? stepBytes : NcclTestsSizes.DEFAULT_STEP_BYTES);
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      int colon = message.indexOf(": ");
      throw new OptionValueException(
          spec, message.substring(0, colon), message.substring(colon + 2));
    }
    List<Long> sizes = sweep.sizes(MAX_WALKED_SIZES);
    if (sizes.size() > MAX_WALKED_SIZES) {
      throw new OptionValueException(spec, stepFlag(), tooManySizes(MAX_SIZES));
    }
    Set<Long> messages = new LinkedHashSet<>();
    for (long size : sizes) {
      long bytes = NcclTestsSizes.bytesPerRank(size, collective, dtype, worldSize);
      if (bytes < ALIGNMENT || bytes % ALIGNMENT != 0) {
        skipped.add(
            size + " B (" + bytes + " B per rank is not a whole number of 16-byte vectors)");
      } else if (bytes > CommJobValidator.MAX_BYTES_PER_RANK) {
        skipped.add(
            size
                + " B ("
                + bytes
                + " B per rank is above the "
                + (CommJobValidator.MAX_BYTES_PER_RANK >> 30)
                + " GiB a rank may move)");
      } else {
        messages.add(bytes);
      }
      if (messages.size() > MAX_SIZES) {
        throw new OptionValueException(spec, stepFlag(), tooManySizes(MAX_SIZES));
      }
    }
    if (messages.isEmpty()) {
      // every size was left out: say why each was, in the words of the skipped list
      throw new OptionValueException(
          spec, "-e", "no size of the sweep can run: " + firstOf(skipped, 3));
    }
    return new ArrayList<>(messages);
  }

  /** The first {@code shown} of {@code items} and a count of the rest, for one line. */
  static String firstOf(List<String> items, int shown) {
    return items.size() <= shown
        ? String.join(", ", items)
        : String.join(", ", items.subList(0, shown)) + " and " + (items.size() - shown) + " more";
  }

  private String stepFlag() {
    return stepFactor != null && stepFactor > 1 ? "-e" : "-i";
  }

  private static String tooManySizes(int most) {
    return "the sweep has more than " + most + " sizes; raise -f or -i, or lower -e";
  }
}
