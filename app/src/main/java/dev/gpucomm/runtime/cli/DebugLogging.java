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

  private DebugLogging() {}

  static synchronized void enable() {
    if (GPUCOMM.getLevel() == Level.FINE) {
      return;
    }
    ConsoleHandler handler = new ConsoleHandler();
    handler.setLevel(Level.FINE);
    GPUCOMM.addHandler(handler);
    GPUCOMM.setLevel(Level.FINE);
  }
}
