package dev.gpucomm.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/** The message size of an expect rule: whole bytes, or a binary quantity such as 64Mi. */
public final class ExpectedSize {
  private static final Pattern FORM = Pattern.compile("^[0-9]+(Ki|Mi|Gi)?$");

  private ExpectedSize() {}

  /** The size in bytes, or empty when {@code text} is not one. */
  public static OptionalLong bytes(String text) {
    if (text == null || !FORM.matcher(text).matches()) {
      return OptionalLong.empty();
    }
    BigDecimal bytes = Quantity.getAmountInBytes(new Quantity(text));
    if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(bytes.longValueExact());
  }
}
