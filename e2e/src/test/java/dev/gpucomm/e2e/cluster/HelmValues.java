package dev.gpucomm.e2e.cluster;

import java.util.LinkedHashMap;
import java.util.Map;

/** The chart values the e2e run sets, by the key names of helm/gpucomm-operator/values.yaml. */
final class HelmValues {
  private HelmValues() {}

  /** The operator's image and the runtime image its pods run, each a full image reference. */
  static Map<String, String> images(String operatorImage, String runtimeImage) {
    Map<String, String> values = new LinkedHashMap<>();
    ImageReference operator = ImageReference.parse(operatorImage);
    values.put("image.repository", operator.repository());
    values.put("image.tag", operator.tag());
    ImageReference runtime = ImageReference.parse(runtimeImage);
    values.put("runtime.image.repository", runtime.repository());
    values.put("runtime.image.tag", runtime.tag());
    return values;
  }

  /** Makes the operator watch only the run's namespace. */
  static Map<String, String> watchNamespace(String namespace) {
    return Map.of("watchNamespaces[0]", namespace);
  }

  /** An image reference split at its tag: registry/path:tag (the tag defaults to latest). */
  record ImageReference(String repository, String tag) {
    static ImageReference parse(String reference) {
      if (reference.contains("@")) {
        throw new IllegalArgumentException(
            "image "
                + reference
                + ": give a tag, not a digest (the chart takes repository and tag)");
      }
      int slash = reference.lastIndexOf('/');
      int colon = reference.lastIndexOf(':');
      if (colon > slash) {
        return new ImageReference(reference.substring(0, colon), reference.substring(colon + 1));
      }
      return new ImageReference(reference, "latest");
    }
  }
}
