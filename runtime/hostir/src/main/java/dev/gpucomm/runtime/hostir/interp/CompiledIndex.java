package dev.gpucomm.runtime.hostir.interp;

import dev.gpucomm.runtime.hostir.ir.IndexExpr;
import java.util.Map;

/** An {@link IndexExpr} resolved to loop-index slots, evaluated without allocating. */
@FunctionalInterface
interface CompiledIndex {
  long value(ExecutionState state);

  /**
   * Compiles {@code expr}; every loop index it uses must be bound in {@code slots} (that is, the
   * expression must sit inside the loop of that index).
   */
  static CompiledIndex of(IndexExpr expr, Map<String, Integer> slots) {
    return switch (expr) {
      case IndexExpr.Constant(long value) -> state -> value;
      case IndexExpr.Rank() -> state -> state.rank;
      case IndexExpr.LoopIndex(String name) -> {
        Integer slot = slots.get(name);
        if (slot == null) {
          throw new IllegalArgumentException("loop index " + name + " used outside its loop");
        }
        int index = slot;
        yield state -> state.loopIndices[index];
      }
      case IndexExpr.Sum(IndexExpr left, IndexExpr right) -> {
        CompiledIndex l = of(left, slots);
        CompiledIndex r = of(right, slots);
        yield state -> l.value(state) + r.value(state);
      }
      case IndexExpr.Difference(IndexExpr left, IndexExpr right) -> {
        CompiledIndex l = of(left, slots);
        CompiledIndex r = of(right, slots);
        yield state -> l.value(state) - r.value(state);
      }
      case IndexExpr.Remainder(IndexExpr left, IndexExpr right) -> {
        CompiledIndex l = of(left, slots);
        CompiledIndex r = of(right, slots);
        yield state -> {
          long divisor = r.value(state);
          if (divisor <= 0) {
            throw new IllegalStateException("modulus " + expr + " has divisor " + divisor);
          }
          return Math.floorMod(l.value(state), divisor);
        };
      }
    };
  }
}
