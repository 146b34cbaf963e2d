package dev.gpucomm.e2e.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in for the gpucomm CLI that checks the simulated node itself: prints what the container
 * sees (environment, job file), then exits with a given code and termination message, or sleeps
 * until it is killed.
 */
public final class FakeGpucomm {
  private FakeGpucomm() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    System.out.println("args=" + String.join(" ", args));
    System.getenv().entrySet().stream()
        .sorted(java.util.Map.Entry.comparingByKey())
        .forEach(e -> System.out.println("env " + e.getKey() + "=" + e.getValue()));
    Path jobFile = Path.of(System.getenv("GPUCOMM_JOB_FILE"));
    System.out.println(
        "job.json=" + (Files.exists(jobFile) ? Files.readString(jobFile) : "<none>"));
    System.out.flush();
    if (args[0].equals("sleep")) {
      TimeUnit.HOURS.sleep(1);
    }
    int exitCode = args.length > 1 ? Integer.parseInt(args[1]) : 0;
    if (args.length > 2) {
      Files.writeString(Path.of(System.getenv("GPUCOMM_TERMINATION_LOG")), args[2]);
    }
    System.exit(exitCode);
  }
}
