package dev.gpucomm.runtime.hostir.interp;

/** One compiled statement: enqueues its work on the current stream of {@code state}. */
@FunctionalInterface
interface Step {
  void execute(ExecutionState state);

  static Step sequence(Step[] steps) {
    return state -> {
      for (Step step : steps) {
        step.execute(state);
      }
    };
  }
}
