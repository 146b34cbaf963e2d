package dev.gpucomm.runtime.cli;

import dev.gpucomm.runtime.UsageException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code gpucomm diag ARGS}: runs the CUDA backend's diagnostics (checks, kernel timings, sweeps)
 * with ARGS. The diagnostics are lab work of the CUDA module, which the application depends on at
 * run time only, so they are found by class name, as the CUDA backend is.
 */
@Command(
    name = "diag",
    customSynopsis = "gpucomm diag --rank R --world W --store HOST:PORT [diagnostics options]",
    description = {
      "run the CUDA backend's diagnostics on this host, one process per GPU; every argument goes"
          + " to the diagnostics (--check, --bench [--samples N], --tune, --json FILE, ...)"
    },
    descriptionHeading = "%n",
    optionListHeading = "%nOptions:%n")
final class DiagCommand implements Callable<Integer> {
  static final String CUDA_DIAGNOSTICS = "dev.gpucomm.runtime.collective.cuda.lab.CudaDiagnostics";

  private final String mainClass;

  @Unmatched List<String> arguments = new ArrayList<>();

  DiagCommand(String mainClass) {
    this.mainClass = mainClass;
  }

  @Override
  public Integer call() throws Exception {
    Method run = run();
    try {
      return (Integer) run.invoke(null, (Object) arguments.toArray(String[]::new));
    } catch (InvocationTargetException e) {
      // the diagnostics' own failure (an Error too, such as a missing native library) is said
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw new IllegalStateException(Gpucomm.describe(e.getCause()), e.getCause());
    }
  }

  /** The diagnostics' {@code public static int run(String[])}: its exit status. */
  private Method run() {
    Class<?> diagnostics;
    try {
      diagnostics = Class.forName(mainClass);
    } catch (ClassNotFoundException e) {
      throw new UsageException(
          "the CUDA diagnostics are not part of this build (no class " + mainClass + ")");
    }
    try {
      Method run = diagnostics.getMethod("run", String[].class);
      if (Modifier.isStatic(run.getModifiers()) && run.getReturnType() == int.class) {
        return run;
      }
    } catch (NoSuchMethodException e) {
      // said below
    }
    throw new IllegalStateException(mainClass + " has no public static int run(String[])");
  }
}
