package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * The transports a job requires NCCL to have chosen; checked on every rank right after its
 * communicator is built, before the workload runs.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkExpectation {
  /**
   * How a rank's failure message starts when NCCL chose another transport: the operator turns it
   * into the Failed reason UnexpectedTransport.
   */
  public static final String FAILURE_PREFIX = "unexpected transport: ";

  @JsonPropertyDescription(
      "Transport between GPUs of different hosts (one pod per node): any, ib, roce, socket or"
          + " plugin (any when unset). Checked on cuda.")
  private InterNodeTransport interNode;

  @JsonPropertyDescription(
      "Transport between GPUs of one host: any, nvlink, p2p (NVLink or PCIe) or shm (any when"
          + " unset). Checked on cuda.")
  private IntraNodeTransport intraNode;

  public InterNodeTransport getInterNode() {
    return interNode;
  }

  public void setInterNode(InterNodeTransport interNode) {
    this.interNode = interNode;
  }

  public NetworkExpectation withInterNode(InterNodeTransport interNode) {
    this.interNode = interNode;
    return this;
  }

  public IntraNodeTransport getIntraNode() {
    return intraNode;
  }

  public void setIntraNode(IntraNodeTransport intraNode) {
    this.intraNode = intraNode;
  }

  public NetworkExpectation withIntraNode(IntraNodeTransport intraNode) {
    this.intraNode = intraNode;
    return this;
  }
}
