package dev.gpucomm.runtime.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Shows gpucomm's debug log (heuristic decisions with their inputs, among others) on stderr when
 * the user asks for --debug, and the libraries' logs only then; the runtime logs through
 * System.Logger, which is java.util.logging.
 */
final class DebugLogging {
  /** Held so that the configured logger is not garbage-collected with its level. */
  private static final Logger GPUCOMM = Logger.getLogger("dev.gpucomm");

  /** The Kubernetes client's log (through SLF4J), held for the same reason. */
  private static final Logger FABRIC8 = Logger.getLogger("io.fabric8");

  private DebugLogging() {}

  /**
   * Without --debug, the Kubernetes client's own log stays off stderr: its warnings (a credential
   * plugin's answer without an apiVersion, a TLS probe falling back) are stamped multi-line records
   * about its internals, while gpucomm says what failed in one line of its own.
   */
  static synchronized void quietLibraries() {
    if (GPUCOMM.getLevel() != Level.FINE) {
      FABRIC8.setLevel(Level.OFF);
    }
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
