package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** Matrix sizes of a program: C[m, n] = A[m, k] x B[k, n]. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Shape {
  @Min(1)
  @JsonPropertyDescription(
      "Rows of A and C. rowParallelLinear: a multiple of chunks; columnParallelLinear and"
          + " collectivePermute: a multiple of spec.worldSize.")
  private Long m;

  @Min(1)
  @JsonPropertyDescription("Columns of B and C.")
  private Long n;

  @Min(1)
  @JsonPropertyDescription(
      "Columns of A, rows of B. rowParallelLinear: a multiple of spec.worldSize.")
  private Long k;

  public Long getM() {
    return m;
  }

  public void setM(Long m) {
    this.m = m;
  }

  public Shape withM(Long m) {
    this.m = m;
    return this;
  }

  public Long getN() {
    return n;
  }

  public void setN(Long n) {
    this.n = n;
  }

  public Shape withN(Long n) {
    this.n = n;
    return this;
  }

  public Long getK() {
    return k;
  }

  public void setK(Long k) {
    this.k = k;
  }

  public Shape withK(Long k) {
    this.k = k;
    return this;
  }
}
