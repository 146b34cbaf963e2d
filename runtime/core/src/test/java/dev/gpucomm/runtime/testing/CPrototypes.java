package dev.gpucomm.runtime.testing;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns C prototypes copied from a library's header into the FFM descriptors they imply on x86-64
 * Linux, so that a binding's descriptors can be checked against the documented signatures.
 */
public final class CPrototypes {
  private static final Pattern PROTOTYPE =
      Pattern.compile("^\\s*(.+?)\\s*\\b(\\w+)\\s*\\((.*)\\)\\s*;\\s*$");

  private final Map<String, MemoryLayout> types = new LinkedHashMap<>();

  public CPrototypes() {
    for (String scalar : List.of("int", "unsigned int", "unsigned")) {
      types.put(scalar, JAVA_INT);
    }
    types.put("unsigned char", JAVA_BYTE);
    types.put("size_t", JAVA_LONG);
    types.put("unsigned long long", JAVA_LONG);
  }

  /** Declares a typedef'd enum or 32-bit integer type. */
  public CPrototypes enumType(String name) {
    types.put(name, JAVA_INT);
    return this;
  }

  /** Declares an opaque handle type (a pointer typedef). */
  public CPrototypes handleType(String name) {
    types.put(name, ADDRESS);
    return this;
  }

  /** Declares a 64-bit integer typedef (e.g. CUdeviceptr). */
  public CPrototypes longType(String name) {
    types.put(name, JAVA_LONG);
    return this;
  }

  /** Declares a struct passed by value, as a byte array of its size. */
  public CPrototypes structType(String name, int bytes) {
    types.put(name, MemoryLayout.structLayout(MemoryLayout.sequenceLayout(bytes, JAVA_BYTE)));
    return this;
  }

  /**
   * The function name and descriptor a prototype such as {@code int f(void* p, size_t n);} implies.
   */
  public Map.Entry<String, FunctionDescriptor> parse(String prototype) {
    Matcher m = PROTOTYPE.matcher(prototype);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a C prototype: " + prototype);
    }
    MemoryLayout result = layoutOf(m.group(1));
    List<MemoryLayout> arguments = new ArrayList<>();
    String parameters = m.group(3).trim();
    if (!parameters.isEmpty() && !parameters.equals("void")) {
      for (String parameter : parameters.split(",")) {
        arguments.add(layoutOf(stripName(parameter.trim())));
      }
    }
    FunctionDescriptor descriptor =
        FunctionDescriptor.of(result, arguments.toArray(MemoryLayout[]::new));
    return Map.entry(m.group(2), descriptor);
  }

  private static String stripName(String parameter) {
    // "const void* sendbuff" -> "const void*"; "int rank" -> "int"; "size_t" stays.
    Matcher named = Pattern.compile("^(.*?[\\s*])(\\w+)$").matcher(parameter);
    if (named.matches() && !named.group(1).isBlank()) {
      String type = named.group(1).trim();
      if (!type.equals("unsigned") && !type.equals("const")) {
        return type;
      }
    }
    return parameter;
  }

  private MemoryLayout layoutOf(String cType) {
    String type = cType.replace("const ", "").replace(" const", "").trim();
    if (type.endsWith("*")) {
      return ADDRESS;
    }
    MemoryLayout layout = types.get(type);
    if (layout == null) {
      throw new IllegalArgumentException("unknown C type '" + cType + "'");
    }
    return layout;
  }

  /** A descriptor with every layout name removed, for comparing shapes only. */
  public static String shape(FunctionDescriptor descriptor) {
    StringBuilder text = new StringBuilder();
    text.append(descriptor.returnLayout().map(CPrototypes::shape).orElse("void")).append(" (");
    List<String> parts = new ArrayList<>();
    for (MemoryLayout argument : descriptor.argumentLayouts()) {
      parts.add(shape(argument));
    }
    return text.append(String.join(", ", parts)).append(")").toString();
  }

  private static String shape(MemoryLayout layout) {
    return layout.withoutName().toString().replaceAll("\\([^)]*\\)", "");
  }
}
