package dev.gpucomm.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Results for one message size: what auto chose, what was fastest, and by how much. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SizeSummary {
  @JsonPropertyDescription("The collective measured.")
  private String collective;

  @JsonPropertyDescription("Message size in bytes per rank.")
  private Long bytes;

  @JsonPropertyDescription("Token count, when the sweep was given in tokens.")
  private Integer tokens;

  @JsonPropertyDescription("The algorithm the heuristic chose for this size.")
  private String chosen;

  @JsonPropertyDescription("The fastest algorithm measured at this size.")
  private String best;

  @JsonPropertyDescription("Median latency of the best algorithm, in microseconds.")
  private Double latencyMicros;

  @JsonPropertyDescription("Median latency of the chosen algorithm, in microseconds.")
  private Double chosenLatencyMicros;

  @JsonPropertyDescription("Bus bandwidth of the best algorithm (nccl-tests definition), GB/s.")
  private Double busBandwidthGBps;

  @JsonPropertyDescription(
      "NCCL's (or the ring's, on the CPU backend) latency divided by the best latency.")
  private Double speedupVsNccl;

  @JsonPropertyDescription(
      "The slowest rank at this size, at the best algorithm: by its time per call outside the waits for other ranks where measured (cpu), else by its own median.")
  private Integer slowestRank;

  @JsonPropertyDescription("The node the slowest rank ran on (its host name outside Kubernetes).")
  private String slowestNode;

  @JsonPropertyDescription(
      "How far the slowest rank was behind the median of the other ranks, in percent of their median time per call.")
  private Double slowestBehindPeersPercent;

  @JsonPropertyDescription(
      "Whether the slowest rank is slower than its peers by more than the report's outlier threshold.")
  private Boolean outlier;

  public String getCollective() {
    return collective;
  }

  public void setCollective(String collective) {
    this.collective = collective;
  }

  public SizeSummary withCollective(String collective) {
    this.collective = collective;
    return this;
  }

  public Long getBytes() {
    return bytes;
  }

  public void setBytes(Long bytes) {
    this.bytes = bytes;
  }

  public SizeSummary withBytes(Long bytes) {
    this.bytes = bytes;
    return this;
  }

  public Integer getTokens() {
    return tokens;
  }

  public void setTokens(Integer tokens) {
    this.tokens = tokens;
  }

  public SizeSummary withTokens(Integer tokens) {
    this.tokens = tokens;
    return this;
  }

  public String getChosen() {
    return chosen;
  }

  public void setChosen(String chosen) {
    this.chosen = chosen;
  }

  public SizeSummary withChosen(String chosen) {
    this.chosen = chosen;
    return this;
  }

  public String getBest() {
    return best;
  }

  public void setBest(String best) {
    this.best = best;
  }

  public SizeSummary withBest(String best) {
    this.best = best;
    return this;
  }

  public Double getLatencyMicros() {
    return latencyMicros;
  }

  public void setLatencyMicros(Double latencyMicros) {
    this.latencyMicros = latencyMicros;
  }

  public SizeSummary withLatencyMicros(Double latencyMicros) {
    this.latencyMicros = latencyMicros;
    return this;
  }

  public Double getChosenLatencyMicros() {
    return chosenLatencyMicros;
  }

  public void setChosenLatencyMicros(Double chosenLatencyMicros) {
    this.chosenLatencyMicros = chosenLatencyMicros;
  }

  public SizeSummary withChosenLatencyMicros(Double chosenLatencyMicros) {
    this.chosenLatencyMicros = chosenLatencyMicros;
    return this;
  }

  public Double getBusBandwidthGBps() {
    return busBandwidthGBps;
  }

  public void setBusBandwidthGBps(Double busBandwidthGBps) {
    this.busBandwidthGBps = busBandwidthGBps;
  }

  public SizeSummary withBusBandwidthGBps(Double busBandwidthGBps) {
    this.busBandwidthGBps = busBandwidthGBps;
    return this;
  }

  public Double getSpeedupVsNccl() {
    return speedupVsNccl;
  }

  public void setSpeedupVsNccl(Double speedupVsNccl) {
    this.speedupVsNccl = speedupVsNccl;
  }

  public SizeSummary withSpeedupVsNccl(Double speedupVsNccl) {
    this.speedupVsNccl = speedupVsNccl;
    return this;
  }

  public Integer getSlowestRank() {
    return slowestRank;
  }

  public void setSlowestRank(Integer slowestRank) {
    this.slowestRank = slowestRank;
  }

  public SizeSummary withSlowestRank(Integer slowestRank) {
    this.slowestRank = slowestRank;
    return this;
  }

  public String getSlowestNode() {
    return slowestNode;
  }

  public void setSlowestNode(String slowestNode) {
    this.slowestNode = slowestNode;
  }

  public SizeSummary withSlowestNode(String slowestNode) {
    this.slowestNode = slowestNode;
    return this;
  }

  public Double getSlowestBehindPeersPercent() {
    return slowestBehindPeersPercent;
  }

  public void setSlowestBehindPeersPercent(Double slowestBehindPeersPercent) {
    this.slowestBehindPeersPercent = slowestBehindPeersPercent;
  }

  public SizeSummary withSlowestBehindPeersPercent(Double slowestBehindPeersPercent) {
    this.slowestBehindPeersPercent = slowestBehindPeersPercent;
    return this;
  }

  public Boolean getOutlier() {
    return outlier;
  }

  public void setOutlier(Boolean outlier) {
    this.outlier = outlier;
  }

  public SizeSummary withOutlier(Boolean outlier) {
    this.outlier = outlier;
    return this;
  }
}
