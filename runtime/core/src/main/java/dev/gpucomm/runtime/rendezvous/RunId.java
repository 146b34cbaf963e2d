package dev.gpucomm.runtime.rendezvous;

import dev.gpucomm.runtime.UsageException;
import java.util.UUID;

/**
 * Which run of a job a rank belongs to, as torchrun's {@code --rdzv-id} says it: a store serves the
 * ranks of its own run and refuses others before they take a rank's place, so that a rank left over
 * from an earlier run, or started by hand for another job on the same address, fails alone instead
 * of failing the run it reached ("rank 1 connected twice").
 *
 * @param value letters, digits and {@code . _ : / -}; empty for ranks that name no run
 */
public record RunId(String value) {
  /** Long enough for a Kubernetes uid, a job name and an attempt number. */
  public static final int MAX_LENGTH = 256;

  /** What a rank that names no run carries, and what a store for such ranks serves. */
  public static final RunId NONE = new RunId("");

  public RunId {
    if (!isValid(value)) {
      throw new IllegalArgumentException("not a run id: " + value);
    }
  }

  /** Whether {@code text} is a run id (what a store checks of a rank's hello). */
  public static boolean isValid(String text) {
    return text != null && text.length() <= MAX_LENGTH && text.chars().allMatch(RunId::isAllowed);
  }

  /** ASCII letters and digits and {@code . _ : / -}. */
  private static boolean isAllowed(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || ".-_:/".indexOf(c) >= 0;
  }

  /** A run of its own, for a launcher that starts every rank of it (a local run). */
  public static RunId random() {
    return new RunId(UUID.randomUUID().toString());
  }

  /**
   * Reads a run id a user or the operator set; {@code origin} (e.g. "GPUCOMM_RUN_ID") names it in
   * errors. Absent or empty is {@link #NONE}.
   */
  public static RunId parse(String text, String origin) {
    if (text == null || text.isEmpty()) {
      return NONE;
    }
    if (text.length() > MAX_LENGTH) {
      throw new UsageException(
          origin + ": " + text.length() + " characters, more than the " + MAX_LENGTH + " allowed");
    }
    for (int i = 0; i < text.length(); i++) {
      if (!isAllowed(text.charAt(i))) {
        // the code, not the character: it may be a control character or half of a pair
        throw new UsageException(
            "%s: character %d (U+%04X) is not a letter, digit or . _ : / -"
                .formatted(origin, i + 1, (int) text.charAt(i)));
      }
    }
    return new RunId(text);
  }

  @Override
  public String toString() {
    return value.isEmpty() ? "(none)" : value;
  }
}
