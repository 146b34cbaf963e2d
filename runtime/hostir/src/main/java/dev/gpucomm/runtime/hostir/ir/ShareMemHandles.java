package dev.gpucomm.runtime.hostir.ir;

import java.util.List;

/**
 * Exchanges, in one batch, the IPC handles the listed transfers need. Handles are cached: only the
 * uncached ones are exchanged, and when nothing is new the statement does nothing (no barrier).
 */
public record ShareMemHandles(List<P2PCommunication> communications) implements Statement {
  public ShareMemHandles {
    communications = List.copyOf(communications);
  }
}
