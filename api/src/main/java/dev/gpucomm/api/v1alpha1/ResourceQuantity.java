package dev.gpucomm.api.v1alpha1;

import java.util.regex.Pattern;

/**
 * The syntax of a Kubernetes resource quantity (a memory limit, a volume's sizeLimit): the pattern
 * controller-gen writes into CRDs for resource.Quantity. Fabric8's Quantity keeps a string such as
 * "two" as it is, so what is a quantity is checked against this.
 */
public final class ResourceQuantity {
  public static final String PATTERN =
      "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]"
          + "|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

  private static final Pattern COMPILED = Pattern.compile(PATTERN);

  private ResourceQuantity() {}

  public static boolean isQuantity(String text) {
    return text != null && COMPILED.matcher(text).matches();
  }
}
