package dev.gpucomm.runtime.fabric;

/**
 * The circle method of a round-robin tournament: with {@code n} participants (one sits out each
 * round when {@code n} is odd), every participant meets every other exactly once in {@link
 * #rounds()} rounds, and each is busy with at most one partner per round, so that a round's pairs
 * run at once without sharing an endpoint.
 */
public record RoundRobin(int participants) {
  public RoundRobin {
    if (participants < 1) {
      throw new IllegalArgumentException("a round robin needs a participant");
    }
  }

  /** n − 1 rounds for even n, n for odd n (a bye each round), none for one participant. */
  public int rounds() {
    return participants == 1 ? 0 : slots() - 1;
  }

  /**
   * The partner of {@code participant} in {@code round}, or -1 when it sits out that round. Slot 0
   * stays put, the others turn by one place each round, and slot k faces slot m − 1 − k.
   */
  public int partner(int round, int participant) {
    int slots = slots();
    int[] seated = new int[slots];
    seated[0] = 0;
    for (int k = 1; k < slots; k++) {
      seated[k] = 1 + (k - 1 + round) % (slots - 1);
    }
    for (int k = 0; k < slots; k++) {
      if (seated[k] == participant) {
        int partner = seated[slots - 1 - k];
        return partner >= participants ? -1 : partner;
      }
    }
    return -1;
  }

  private int slots() {
    return participants % 2 == 0 ? participants : participants + 1;
  }
}
