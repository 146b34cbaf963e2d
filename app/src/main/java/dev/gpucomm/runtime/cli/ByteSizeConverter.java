package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.spec.AsciiIntegers;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A size in bytes with an optional binary unit: 4096, 64K, 1M (2^20), 2G, also 64KiB or 64KB. */
final class ByteSizeConverter implements ITypeConverter<Long> {
  @Override
  public Long convert(String text) {
    String item = text.strip();
    String upper = withoutByteSuffix(item.toUpperCase(Locale.ROOT));
    long unit =
        switch (upper.isEmpty() ? ' ' : upper.charAt(upper.length() - 1)) {
          case 'K' -> 1L << 10;
          case 'M' -> 1L << 20;
          case 'G' -> 1L << 30;
          default -> 1;
        };
    String digits = unit == 1 ? upper : upper.substring(0, upper.length() - 1);
    try {
      return Math.multiplyExact(AsciiIntegers.parseLong(digits), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new TypeConversionException("'" + item + "' is not a size (e.g. 4096, 64K, 1M)");
    }
  }

  /**
   * {@code text} without its trailing B, or the IB of KIB, MIB, GIB: only a unit's own spelling.
   */
  private static String withoutByteSuffix(String text) {
    if (text.matches(".*[KMG]IB")) {
      return text.substring(0, text.length() - 2);
    }
    return text.endsWith("B") ? text.substring(0, text.length() - 1) : text;
  }
}
