package dev.gpucomm.runtime.cli;

/**
 * A command-line option: {@code --name} (and optionally a one-letter alias such as {@code -f}),
 * taking a value or not, with a line of help.
 */
record Option(String name, String alias, String valueName, String help) {
  static Option flag(String name, String help) {
    return new Option(name, null, null, help);
  }

  static Option value(String name, String valueName, String help) {
    return new Option(name, null, valueName, help);
  }

  static Option value(String name, String alias, String valueName, String help) {
    return new Option(name, alias, valueName, help);
  }

  boolean takesValue() {
    return valueName != null;
  }

  String usage() {
    return (alias != null ? "-" + alias + ", " : "    ")
        + "--"
        + name
        + (takesValue() ? " " + valueName : "");
  }
}
