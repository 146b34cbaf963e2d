package dev.gpucomm.runtime.report;

/** File names of a fabric sweep's heatmaps (also the results ConfigMap's keys). */
public final class FabricFiles {
  public static final String PODS_SVG = "fabric-pods.svg";

  private FabricFiles() {}

  public static String nodeSvg(int pod) {
    return "fabric-pod-" + pod + ".svg";
  }
}
