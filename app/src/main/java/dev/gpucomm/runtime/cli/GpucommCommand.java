package dev.gpucomm.runtime.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** The {@code gpucomm} command itself: its global options, exit codes and version. */
@Command(
    name = "gpucomm",
    description =
        "GPU communication jobs (CommJobs) on this host or in a Kubernetes cluster.%n"
            + "gpucomm COMMAND --help shows the options of a command.",
    synopsisSubcommandLabel = "COMMAND",
    descriptionHeading = "%n",
    optionListHeading = "%nOptions:%n",
    commandListHeading = "%nCommands:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:failure: a rank failed, a result was wrong, the job timed out",
      "2:usage error: a bad flag, job file or setting",
      "5:run: the job ran, but spec.expect is not met (a floor or ceiling missed, or its figure not measured)"
    },
    footerHeading = "%n",
    footer = "Errors are one line on stderr; --debug (or GPUCOMM_DEBUG=1) adds stack traces.",
    versionProvider = GpucommCommand.Version.class)
final class GpucommCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      scope = ScopeType.INHERIT,
      description = "show this help")
  boolean help;

  @Option(names = "--version", versionHelp = true, description = "print the version")
  boolean version;

  /**
   * Declared so that every command accepts it and lists it; {@link Gpucomm} reads it from the raw
   * arguments, because a usage error found while parsing must show its stack trace too.
   */
  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "print stack traces with errors, and the runtime's debug log")
  boolean debug;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "name a command");
  }

  /** The version of the gpucomm jar, from its manifest. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Gpucomm.class.getPackage().getImplementationVersion();
      return new String[] {"gpucomm " + (version != null ? version : "(development build)")};
    }
  }
}
