package dev.gpucomm.runtime.device.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds a shared library for the FFM bindings: an explicit path from an environment variable, then
 * the dynamic loader's search (LD_LIBRARY_PATH, ld.so.cache), then well-known install folders.
 */
public final class NativeLibraries {
  private NativeLibraries() {}

  /** A loaded library and the name or path it was found under. */
  public record Loaded(SymbolLookup lookup, String source) {}

  /**
   * Downcall handles for every function in {@code functions}, by name.
   *
   * @throws IllegalStateException naming the library and the first symbol it lacks
   */
  public static Map<String, MethodHandle> bind(
      SymbolLookup lookup, String source, Map<String, FunctionDescriptor> functions) {
    Linker linker = Linker.nativeLinker();
    Map<String, MethodHandle> handles = new LinkedHashMap<>();
    for (Map.Entry<String, FunctionDescriptor> entry : functions.entrySet()) {
      var symbol =
          lookup
              .find(entry.getKey())
              .orElseThrow(
                  () -> new IllegalStateException(source + " has no symbol " + entry.getKey()));
      handles.put(entry.getKey(), linker.downcallHandle(symbol, entry.getValue()));
    }
    return handles;
  }

  /**
   * Loads the first of {@code names} that the system can open, trying {@code overrideVariable}'s
   * value first when it is set.
   *
   * @return the library, or empty with every attempt listed in {@code failures}
   */
  public static Optional<Loaded> load(
      String overrideVariable, List<String> names, List<Path> folders, List<String> failures) {
    List<String> candidates = new ArrayList<>();
    String override = overrideVariable == null ? null : System.getenv(overrideVariable);
    if (override != null && !override.isBlank()) {
      candidates.add(override.trim());
    }
    candidates.addAll(names);
    for (Path folder : folders) {
      for (String name : names) {
        Path path = folder.resolve(name);
        if (Files.exists(path)) {
          candidates.add(path.toString());
        }
      }
    }
    for (String candidate : candidates) {
      if (candidate.contains("/")
          && Files.exists(Path.of(candidate))
          && !Files.isRegularFile(Path.of(candidate))) {
        // the loader reads what it is given: a fifo would block it for good, a device forever
        failures.add(candidate + ": not a regular file");
        continue;
      }
      try {
        // The global arena keeps the library loaded for the life of the process, as the driver
        // and NCCL expect.
        SymbolLookup lookup = SymbolLookup.libraryLookup(candidate, Arena.global());
        return Optional.of(new Loaded(lookup, candidate));
      } catch (IllegalArgumentException | IllegalCallerException e) {
        failures.add(candidate + ": " + e.getMessage());
      }
    }
    return Optional.empty();
  }
}
