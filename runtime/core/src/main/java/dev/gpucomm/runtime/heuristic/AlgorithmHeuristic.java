package dev.gpucomm.runtime.heuristic;

/** A rule that picks the algorithm {@code auto} runs for one collective call; a pure function. */
public interface AlgorithmHeuristic {
  /** The heuristic's name as written in the CommJob (trtllm, vllm, measured, fixed). */
  String name();

  Decision choose(SizeQuery query);
}
