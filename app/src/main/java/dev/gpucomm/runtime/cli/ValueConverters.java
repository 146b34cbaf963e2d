package dev.gpucomm.runtime.cli;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.AllReducePattern;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.DeviceKind;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import dev.gpucomm.runtime.spec.AsciiIntegers;
import java.util.Optional;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * How option values become the types the commands declare: the CommJob's enums by their wire names
 * (exactly as a job file spells them), integers with gpucomm's wording of a bad one.
 */
final class ValueConverters {
  private ValueConverters() {}

  /** Registers the converters on {@code cli} and on the subcommands it has so far. */
  static void register(CommandLine cli) {
    cli.registerConverter(
        DeviceKind.class, wireName(DeviceKind::fromWireName, DeviceKind.wireNames()));
    cli.registerConverter(
        Collective.class, wireName(Collective::fromWireName, Collective.wireNames()));
    cli.registerConverter(DType.class, wireName(DType::fromWireName, DType.wireNames()));
    cli.registerConverter(
        AllReducePattern.class,
        wireName(AllReducePattern::fromWireName, AllReducePattern.wireNames()));
    cli.registerConverter(
        Algorithm.class, wireName(Algorithm::fromWireName, Algorithm.wireNames()));
    cli.registerConverter(
        HeuristicName.class, wireName(HeuristicName::fromWireName, HeuristicName.wireNames()));
    ITypeConverter<Integer> integer = text -> integer(text, AsciiIntegers::parseInt);
    cli.registerConverter(Integer.class, integer);
    cli.registerConverter(int.class, integer);
    ITypeConverter<Long> longInteger = text -> integer(text, AsciiIntegers::parseLong);
    cli.registerConverter(Long.class, longInteger);
    cli.registerConverter(long.class, longInteger);
  }

  private static <T> ITypeConverter<T> wireName(
      Function<String, Optional<T>> parse, String expected) {
    return text ->
        parse
            .apply(text)
            .orElseThrow(
                () ->
                    new TypeConversionException(
                        "unknown value '" + text + "' (expected " + expected + ")"));
  }

  private static <T> T integer(String text, Function<String, T> parse) {
    try {
      return parse.apply(text.strip());
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + text + "' is not an integer");
    }
  }
}
