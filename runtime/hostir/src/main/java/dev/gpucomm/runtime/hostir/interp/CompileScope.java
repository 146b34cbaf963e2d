package dev.gpucomm.runtime.hostir.interp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Where the statement being compiled sits: the loops around it and their index slots. */
final class CompileScope {
  /** Slot of each loop index bound here, by name. */
  final Map<String, Integer> slots = new HashMap<>();

  /** Slots of the enclosing loops, outermost first. */
  final List<Integer> enclosingSlots = new ArrayList<>();
}
