package dev.gpucomm.runtime.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Shows gpucomm's debug log (heuristic decisions with their inputs, among others) on stderr when
 * the user asks for --debug; the runtime logs through System.Logger, which is java.util.logging.
 */
final class DebugLogging {
  /** Held so that the configured logger is not garbage-collected with its level. */
  private static final Logger GPUCOMM = Logger.getLogger("dev.gpucomm");

  /** The Kubernetes client's log (through SLF4J), held for the same reason. */
  private static final Logger FABRIC8 = Logger.getLogger("io.fabric8");

  private DebugLogging() {}

  /**
   * For {@code gpucomm report} without --debug: the Kubernetes client's own log stays off stderr.
   * Its warnings there (a credential plugin's answer without an apiVersion, a TLS probe falling
   * back) are stamped multi-line records about its internals, while the command says what failed in
   * one line of its own. Ranks keep it: in a pod, its word on an unreadable service-account token
   * is the reason for the failure that follows.
   */
  static synchronized void quietLibraries() {
    FABRIC8.setLevel(Level.OFF);
  }

  static synchronized void enable() {
    if (GPUCOMM.getLevel() == Level.FINE) {
      return;
    }
    ConsoleHandler handler = new ConsoleHandler();
    handler.setLevel(Level.FINE);
    GPUCOMM.addHandler(handler);
    GPUCOMM.setLevel(Level.FINE);
    FABRIC8.setLevel(null); // the root logger's: its warnings on stderr
  }
}
