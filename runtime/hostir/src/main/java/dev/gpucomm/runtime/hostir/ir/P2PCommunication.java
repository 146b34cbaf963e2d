package dev.gpucomm.runtime.hostir.ir;

import dev.gpucomm.api.v1alpha1.CommBackend;

/**
 * One half of a point-to-point transfer: send {@code buffer} to {@code peer}, or receive {@code
 * buffer} from it. Over IPC the transfer follows the get protocol (the receiver copies from the
 * sender's buffer); a send and the recv posted after it pair up into one send/recv step otherwise.
 */
public record P2PCommunication(
    int id, Direction direction, Tensor buffer, IndexExpr peer, CommBackend backend)
    implements Communication {

  /** Which half of the transfer this is. */
  public enum Direction {
    SEND("send"),
    RECV("recv");

    private final String printed;

    Direction(String printed) {
      this.printed = printed;
    }

    public String printed() {
      return printed;
    }
  }
}
