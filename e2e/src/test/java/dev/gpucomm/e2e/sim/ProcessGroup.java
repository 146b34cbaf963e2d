package dev.gpucomm.e2e.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The processes of one simulated container: a process group started by {@code setsid}, found
 * through Linux's /proc the way a container runtime finds the processes of a PID namespace. A group
 * outlives its leader, so orphaned ranks are still found and killed.
 */
public record ProcessGroup(long id) {
  private static final Path PROC = Path.of("/proc");

  /** The live processes of this group, the leader included while it lives. */
  public List<ProcessHandle> members() {
    List<ProcessHandle> members = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path entry : entries) {
        long pid = Long.parseLong(entry.getFileName().toString());
        Optional<Stat> stat = stat(pid);
        if (stat.isPresent() && stat.get().group() == id && stat.get().running()) {
          ProcessHandle.of(pid).filter(ProcessHandle::isAlive).ifPresent(members::add);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return members;
  }

  /** The live members whose environment holds {@code name=value}. */
  public List<ProcessHandle> membersWithEnv(String name, String value) {
    return members().stream().filter(p -> value.equals(environmentOf(p.pid()).get(name))).toList();
  }

  /** Kills every member at once, as a node does when it stops a container (SIGKILL). */
  public void killAll() {
    members().forEach(ProcessHandle::destroyForcibly);
  }

  /** Asks every member to stop (SIGTERM), as a kubelet does first when it deletes a pod. */
  public void terminateAll() {
    members().forEach(ProcessHandle::destroy);
  }

  /** Whether this machine exposes process groups the way this class reads them. */
  public static boolean supported() {
    return Files.isReadable(PROC.resolve("self").resolve("stat"))
        && Files.isExecutable(Path.of("/usr/bin/setsid"));
  }

  /** The fields of /proc/PID/stat this class reads. */
  private record Stat(char state, long group) {
    /** A zombie (or dead) process runs nothing: it only waits for its parent to reap it. */
    boolean running() {
      return state != 'Z' && state != 'X';
    }
  }

  private static Optional<Stat> stat(long pid) {
    try {
      String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so cut at the
      // last ')'.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[2])));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // the process ended while we looked
    }
  }

  private static Map<String, String> environmentOf(long pid) {
    Map<String, String> environment = new TreeMap<>();
    try {
      byte[] raw = Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("environ"));
      for (String entry : new String(raw, StandardCharsets.UTF_8).split("\0")) {
        int equals = entry.indexOf('=');
        if (equals > 0) {
          environment.put(entry.substring(0, equals), entry.substring(equals + 1));
        }
      }
    } catch (IOException e) {
      // ended meanwhile, or not ours to read: no environment
    }
    return environment;
  }
}
