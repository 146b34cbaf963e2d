package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What a job requires of the fabric between its ranks. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkSpec {
  @JsonPropertyDescription(
      "The transports NCCL must have chosen; a job whose NCCL chose another fails with reason"
          + " UnexpectedTransport, naming the rank, before its workload runs.")
  private NetworkExpectation expect;

  public NetworkExpectation getExpect() {
    return expect;
  }

  public void setExpect(NetworkExpectation expect) {
    this.expect = expect;
  }

  public NetworkSpec withExpect(NetworkExpectation expect) {
    this.expect = expect;
    return this;
  }
}
