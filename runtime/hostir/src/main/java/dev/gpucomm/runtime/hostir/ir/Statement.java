package dev.gpucomm.runtime.hostir.ir;

import java.util.function.Consumer;

/**
 * One statement of a host program. The set is closed: memory ({@link Allocate}, {@link
 * ShardByStream}, {@link Copy}), control flow ({@link ForLoop}, {@link IfThenElse}), streams
 * ({@link GetCurrentStream}, {@link SetCurrentStream}, {@link Synchronize}), compute ({@link
 * Matmul}) and communication ({@link Communication}, {@link ShareMemHandles}, {@link Wait}, {@link
 * StartCoalescing}, {@link EndCoalescing}).
 */
public sealed interface Statement
    permits Allocate,
        ForLoop,
        IfThenElse,
        GetCurrentStream,
        SetCurrentStream,
        Synchronize,
        ShardByStream,
        Copy,
        Matmul,
        Communication,
        ShareMemHandles,
        Wait,
        StartCoalescing,
        EndCoalescing {

  /**
   * Calls {@code action} on each tensor this statement itself reads or writes. Statements that hold
   * other statements ({@link ForLoop}, {@link IfThenElse}) name none of their own, nor does {@link
   * ShareMemHandles}, whose transfers stand in the program on their own.
   */
  default void forEachTensor(Consumer<? super Tensor> action) {
    switch (this) {
      case Allocate allocate -> action.accept(allocate.tensor());
      case ShardByStream shard -> {
        action.accept(shard.out());
        action.accept(shard.in());
      }
      case Copy copy -> {
        action.accept(copy.out());
        action.accept(copy.in());
      }
      case Matmul matmul -> {
        action.accept(matmul.out());
        action.accept(matmul.a());
        action.accept(matmul.b());
      }
      case CollectiveCommunication collective -> {
        action.accept(collective.input());
        action.accept(collective.output());
      }
      case P2PCommunication p2p -> action.accept(p2p.buffer());
      default -> {}
    }
  }
}
