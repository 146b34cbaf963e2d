package dev.gpucomm.runtime.hostir.ir;

/** {@code left == right}, the only test host programs need (is the peer this rank?). */
public record Condition(IndexExpr left, IndexExpr right) {
  public boolean holds(IndexExpr.Environment environment) {
    return left.evaluate(environment) == right.evaluate(environment);
  }

  @Override
  public String toString() {
    return "( " + left + " == " + right + " )";
  }
}
