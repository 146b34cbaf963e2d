package dev.gpucomm.runtime.hostir.ir;

import dev.gpucomm.api.v1alpha1.DType;
import java.util.List;

/**
 * Hands out tensor numbers, communication numbers and loop index names that a program does not use
 * yet, so that passes stay pure functions: the same input program always gets the same new names.
 */
public final class FreshNames {
  private int nextTensor;
  private int nextCommunication;
  private int nextLoopIndex;

  private FreshNames(int nextTensor, int nextCommunication, int nextLoopIndex) {
    this.nextTensor = nextTensor;
    this.nextCommunication = nextCommunication;
    this.nextLoopIndex = nextLoopIndex;
  }

  /** Names for building a program from scratch. */
  public static FreshNames empty() {
    return new FreshNames(0, 0, 0);
  }

  /** Names not used anywhere in {@code program}. */
  public static FreshNames after(Program program) {
    FreshNames names = empty();
    program.inputs().forEach(names::seeTensor);
    program.outputs().forEach(names::seeTensor);
    names.see(program.body());
    return names;
  }

  public Tensor tensor(DType dtype, List<Axis> axes, MemoryType memoryType) {
    return new Tensor(nextTensor++, dtype, axes, memoryType);
  }

  public int communication() {
    return nextCommunication++;
  }

  public IndexExpr.LoopIndex loopIndex() {
    return new IndexExpr.LoopIndex("i" + nextLoopIndex++);
  }

  private void seeTensor(Tensor tensor) {
    nextTensor = Math.max(nextTensor, tensor.id() + 1);
  }

  private void seeCommunication(int id) {
    nextCommunication = Math.max(nextCommunication, id + 1);
  }

  private void see(List<Statement> statements) {
    for (Statement statement : statements) {
      see(statement);
    }
  }

  private void see(Statement statement) {
    statement.forEachTensor(this::seeTensor);
    switch (statement) {
      case ForLoop loop -> {
        String name = loop.index().name();
        if (name.matches("i\\d+")) {
          nextLoopIndex = Math.max(nextLoopIndex, Integer.parseInt(name.substring(1)) + 1);
        }
        see(loop.body());
      }
      case IfThenElse branch -> {
        see(branch.then());
        see(branch.otherwise());
      }
      case Communication communication -> seeCommunication(communication.id());
      case ShareMemHandles share -> share.communications().forEach(this::see);
      case Wait wait -> seeCommunication(wait.communicationId());
      default -> {}
    }
  }
}
