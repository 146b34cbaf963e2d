package dev.gpucomm.runtime.cli;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Slows a process down as a CPU quota does: it is stopped (SIGSTOP) for most of every period and
 * let run (SIGCONT) for the rest, for as long as the throttle is open. Closing it leaves the
 * process running. Linux only (the signal numbers are Linux's).
 */
final class DutyCycleThrottle implements AutoCloseable {
  private static final int SIGCONT = 18;
  private static final int SIGSTOP = 19;
  private static final MethodHandle KILL =
      Linker.nativeLinker()
          .downcallHandle(
              Linker.nativeLinker().defaultLookup().find("kill").orElseThrow(),
              FunctionDescriptor.of(
                  ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

  private final ProcessHandle process;
  private final Thread cycler;
  private volatile boolean open = true;

  /**
   * Starts throttling {@code process}: stopped for {@code stopped}, then running for {@code
   * running}.
   */
  DutyCycleThrottle(ProcessHandle process, Duration running, Duration stopped) {
    this.process = process;
    this.cycler =
        Thread.ofPlatform()
            .name("throttle-" + process.pid())
            .daemon()
            .start(
                () -> {
                  while (open && process.isAlive()) {
                    signal(SIGSTOP);
                    LockSupport.parkNanos(stopped.toNanos());
                    signal(SIGCONT);
                    LockSupport.parkNanos(running.toNanos());
                  }
                });
  }

  private void signal(int signal) {
    int result;
    try {
      result = (int) KILL.invokeExact((int) process.pid(), signal);
    } catch (Throwable e) {
      throw new IllegalStateException("cannot call kill for process " + process.pid(), e);
    }
    if (result != 0 && process.isAlive()) {
      throw new IllegalStateException("kill(" + process.pid() + ", " + signal + ") failed");
    }
  }

  @Override
  public void close() throws InterruptedException {
    open = false;
    cycler.join();
    if (process.isAlive()) {
      signal(SIGCONT);
    }
  }
}
