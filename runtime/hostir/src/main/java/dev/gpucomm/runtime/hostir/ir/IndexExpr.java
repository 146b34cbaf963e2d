package dev.gpucomm.runtime.hostir.ir;

/**
 * The integer expressions of host programs: loop bounds, stream indices, chunk indices and peer
 * ranks. A small closed set: constants, loop indices, this rank, and sums, differences and
 * remainders of those, enough for {@code i mod S}, {@code (i + r) mod D} and {@code (D + r − i) mod
 * D}.
 */
public sealed interface IndexExpr
    permits IndexExpr.Constant,
        IndexExpr.LoopIndex,
        IndexExpr.Rank,
        IndexExpr.Sum,
        IndexExpr.Difference,
        IndexExpr.Remainder {

  /** Values of the free variables of an expression: loop indices and the rank. */
  interface Environment {
    long valueOf(LoopIndex index);

    int rank();
  }

  long evaluate(Environment environment);

  /** True when the expression refers to {@code index}. */
  boolean uses(LoopIndex index);

  static Constant constant(long value) {
    return new Constant(value);
  }

  static Rank rank() {
    return Rank.INSTANCE;
  }

  default IndexExpr plus(IndexExpr other) {
    return new Sum(this, other);
  }

  default IndexExpr minus(IndexExpr other) {
    return new Difference(this, other);
  }

  default IndexExpr mod(IndexExpr divisor) {
    return new Remainder(this, divisor);
  }

  default IndexExpr mod(long divisor) {
    return new Remainder(this, new Constant(divisor));
  }

  /** A literal. */
  record Constant(long value) implements IndexExpr {
    @Override
    public long evaluate(Environment environment) {
      return value;
    }

    @Override
    public boolean uses(LoopIndex index) {
      return false;
    }

    @Override
    public String toString() {
      return Long.toString(value);
    }
  }

  /** The index variable of a {@link ForLoop}, bound only inside the loop's body. */
  record LoopIndex(String name) implements IndexExpr {
    public LoopIndex {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("loop index needs a name");
      }
    }

    @Override
    public long evaluate(Environment environment) {
      return environment.valueOf(this);
    }

    @Override
    public boolean uses(LoopIndex index) {
      return equals(index);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** The rank running the program: programs are the same on every rank (SPMD). */
  record Rank() implements IndexExpr {
    static final Rank INSTANCE = new Rank();

    @Override
    public long evaluate(Environment environment) {
      return environment.rank();
    }

    @Override
    public boolean uses(LoopIndex index) {
      return false;
    }

    @Override
    public String toString() {
      return "rank";
    }
  }

  /** {@code left + right}. */
  record Sum(IndexExpr left, IndexExpr right) implements IndexExpr {
    @Override
    public long evaluate(Environment environment) {
      return Math.addExact(left.evaluate(environment), right.evaluate(environment));
    }

    @Override
    public boolean uses(LoopIndex index) {
      return left.uses(index) || right.uses(index);
    }

    @Override
    public String toString() {
      return "( " + left + " + " + right + " )";
    }
  }

  /** {@code left − right}. */
  record Difference(IndexExpr left, IndexExpr right) implements IndexExpr {
    @Override
    public long evaluate(Environment environment) {
      return Math.subtractExact(left.evaluate(environment), right.evaluate(environment));
    }

    @Override
    public boolean uses(LoopIndex index) {
      return left.uses(index) || right.uses(index);
    }

    @Override
    public String toString() {
      return "( " + left + " - " + right + " )";
    }
  }

  /** {@code left mod right}, never negative (a floor modulus), as indices into chunks need. */
  record Remainder(IndexExpr left, IndexExpr right) implements IndexExpr {
    @Override
    public long evaluate(Environment environment) {
      long divisor = right.evaluate(environment);
      if (divisor <= 0) {
        throw new IllegalStateException("modulus " + this + " has divisor " + divisor);
      }
      return Math.floorMod(left.evaluate(environment), divisor);
    }

    @Override
    public boolean uses(LoopIndex index) {
      return left.uses(index) || right.uses(index);
    }

    @Override
    public String toString() {
      return "( " + left + " % " + right + " )";
    }
  }
}
