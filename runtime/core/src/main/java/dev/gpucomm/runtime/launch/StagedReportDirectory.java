package dev.gpucomm.runtime.launch;

import dev.gpucomm.runtime.files.FileProblem;
import dev.gpucomm.runtime.report.ReportFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A report directory that appears whole or not at all: rank 0 writes into a hidden sibling, and the
 * launcher renames it into place only when every rank succeeded (replacing an older report).
 *
 * <p>Only an earlier report (a directory holding report.json and nothing but the files a report
 * holds) or an empty directory is replaced: {@link #refusal} says why any other target is not, so
 * that a report never deletes the user's files ({@code --out .} in a home directory).
 *
 * <p>Replacing takes two renames (the old report aside, the new one in). A run killed between them
 * leaves the old report aside as {@code .<name>.old-*}; the next run of the same target puts it
 * back before anything else, so a report is never lost to a kill. The same holds for the probe of
 * {@link #refusal}, which renames an existing target to {@code .<name>.probe-<pid>} and back.
 */
public final class StagedReportDirectory {
  /**
   * The file names a report directory of gpucomm holds (report, plots, tuning table, a program's
   * details, timeline and dumped IR); anything else in a target means it is not only a report.
   */
  private static final Pattern REPORT_FILE =
      Pattern.compile(
          "report\\.(json|md|csv)|latency\\.svg|fabric-pods\\.svg|fabric-pod-[0-9]+\\.svg"
              + "|tuning\\.json|program\\.json|host-ir\\.txt|timeline\\.json");

  private final Path target;
  private final Path staging;
  private final Path createdParent;

  /** The mode this process gives a folder it creates (the umask's), for a new report folder. */
  private final Optional<Set<PosixFilePermission>> newFolderMode;

  private StagedReportDirectory(
      Path target,
      Path staging,
      Path createdParent,
      Optional<Set<PosixFilePermission>> newFolderMode) {
    this.target = target;
    this.staging = staging;
    this.createdParent = createdParent;
    this.newFolderMode = newFolderMode;
  }

  /**
   * Why {@code target} cannot take a report, as the end of a sentence naming it; empty when it can
   * (it does not exist yet, is empty, or holds an earlier report). A target that the probe of a
   * killed run left aside is put back first.
   */
  public static Optional<String> refusal(Path target) {
    if (target.toString().isEmpty()) {
      return Optional.of("is empty");
    }
    Path absolute = target.toAbsolutePath().normalize();
    if (absolute.getParent() == null) {
      return Optional.of("is the root directory");
    }
    if (Files.isSymbolicLink(absolute)) {
      // the commit renames the target aside: a link would be replaced by a directory, and a link
      // to nothing would fail only after the whole run
      return Optional.of("is a symbolic link; name the directory itself");
    }
    try {
      recoverProbed(absolute);
    } catch (IOException e) {
      // what cannot be put back stays aside; the checks below judge the target as it is
    }
    if (Files.exists(absolute)) {
      if (!Files.isDirectory(absolute)) {
        return Optional.of("is a file, not a directory");
      }
      if (!Files.isRegularFile(absolute.resolve(ReportFiles.JSON)) && !isEmpty(absolute)) {
        return Optional.of(
            "holds files that are not a gpucomm report (no "
                + ReportFiles.JSON
                + "); name a new or empty directory");
      }
      List<String> foreign = foreignEntries(absolute);
      if (!foreign.isEmpty()) {
        // a report.json alone does not make a folder a report: replacing it would delete these
        return Optional.of(
            "holds files that are not part of a gpucomm report ("
                + String.join(", ", foreign.subList(0, Math.min(3, foreign.size())))
                + (foreign.size() > 3 ? ", ..." : "")
                + "); name a new or empty directory");
      }
      if (!isEmpty(absolute) && !Files.isWritable(absolute)) {
        // its files could be set aside with it, and then not deleted: the new report would land
        // and the run still fail, and so would every later one
        return Optional.of("is not writable: its earlier report cannot be removed");
      }
      Optional<String> notReplaceable = replaceability(absolute);
      if (notReplaceable.isPresent()) {
        return notReplaceable;
      }
    }
    Path ancestor = absolute.getParent();
    while (!Files.exists(ancestor)) {
      ancestor = ancestor.getParent();
    }
    if (!Files.isDirectory(ancestor)) {
      return Optional.of("cannot be created: " + ancestor + " is a file");
    }
    if (!Files.isWritable(ancestor)) {
      return Optional.of("cannot be created: " + ancestor + " is not writable");
    }
    return creatability(ancestor, absolute);
  }

  /**
   * Whether a directory can be made in {@code ancestor}, tried for real: a pseudo file system such
   * as /proc, or a read-only mount, passes the permission check (for root, every one) and would
   * fail only when the finished run stages its report. The trial directory has a name of its own
   * (two runs may check one folder at once) and is removed at once.
   */
  private static Optional<String> creatability(Path ancestor, Path target) {
    Path trial;
    try {
      trial = Files.createTempDirectory(ancestor, "." + target.getFileName() + ".create-");
    } catch (IOException e) {
      return Optional.of("cannot be created in " + ancestor + " (" + FileProblem.of(e) + ")");
    }
    try {
      Files.delete(trial);
    } catch (IOException e) {
      // the folder takes directories, so the report can be made; only the trial is left behind
    }
    return Optional.empty();
  }

  /**
   * Whether an existing target can be renamed aside, as a commit does: a mount point, or another
   * user's directory under a sticky parent, passes every permission check and fails only there,
   * after the whole run. Tried for real, by renaming it aside and back.
   */
  private static Optional<String> replaceability(Path target) {
    Path aside = target.resolveSibling(probePrefix(target) + ProcessHandle.current().pid());
    try {
      Files.move(target, aside, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      return Optional.of("cannot be replaced by a new report (" + FileProblem.of(e) + ")");
    }
    try {
      Files.move(aside, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      return Optional.of(
          "was renamed to " + aside + " and could not be renamed back (" + FileProblem.of(e) + ")");
    }
    return Optional.empty();
  }

  private static String probePrefix(Path target) {
    return "." + target.getFileName() + ".probe-";
  }

  /**
   * Puts back a target that a run killed during its probe left aside, when nothing has taken its
   * place; otherwise removes the leftover if it is empty or an earlier report. A probe of a run
   * still going is left alone.
   */
  private static void recoverProbed(Path target) throws IOException {
    String prefix = probePrefix(target);
    List<Path> leftovers;
    try (Stream<Path> siblings = Files.list(target.getParent())) {
      leftovers = siblings.filter(sibling -> isProbeOfEndedRun(sibling, prefix)).toList();
    } catch (NoSuchFileException e) {
      return; // no parent, so nothing was probed there
    }
    for (Path probed : leftovers) {
      if (!Files.exists(target)) {
        Files.move(probed, target, StandardCopyOption.ATOMIC_MOVE);
      } else if (isEmpty(probed) || Files.isRegularFile(probed.resolve(ReportFiles.JSON))) {
        deleteTree(probed);
      }
    }
  }

  private static boolean isProbeOfEndedRun(Path sibling, String prefix) {
    String name = sibling.getFileName().toString();
    if (!name.startsWith(prefix) || !Files.isDirectory(sibling)) {
      return false;
    }
    long pid;
    try {
      pid = Long.parseLong(name.substring(prefix.length()));
    } catch (NumberFormatException e) {
      return false; // not a name the probe gives
    }
    return ProcessHandle.of(pid).map(process -> !process.isAlive()).orElse(true);
  }

  /** Whether {@code name} is a file gpucomm writes into a report directory. */
  public static boolean isReportFile(String name) {
    return REPORT_FILE.matcher(name).matches();
  }

  /** The sorted names in {@code directory} that are not regular files a report holds. */
  private static List<String> foreignEntries(Path directory) {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries
          .filter(
              entry ->
                  !Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)
                      || !isReportFile(entry.getFileName().toString()))
          .map(entry -> entry.getFileName().toString())
          .sorted()
          .toList();
    } catch (IOException e) {
      return List.of(directory.getFileName() + " (unreadable: " + FileProblem.of(e) + ")");
    }
  }

  private static boolean isEmpty(Path directory) {
    try (var entries = Files.list(directory)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  /** Creates the hidden staging directory next to {@code target} (and its parents). */
  public static StagedReportDirectory create(Path target) {
    Path absolute = target.toAbsolutePath().normalize();
    try {
      Path parent = absolute.getParent();
      Path createdParent = Files.isDirectory(parent) ? null : Files.createDirectories(parent);
      recoverProbed(absolute);
      recoverSetAside(absolute);
      OwnedTemporaryDirectory.removeAbandoned(parent, stagingPrefix(absolute));
      Path staging = OwnedTemporaryDirectory.create(parent, stagingPrefix(absolute));
      return new StagedReportDirectory(absolute, staging, createdParent, newFolderMode(staging));
    } catch (IOException e) {
      // The staging directory's name is ours, not the user's: what failed there is said of target.
      String problem =
          FileProblem.concernsFileNamed(e, stagingPrefix(absolute))
              ? FileProblem.of(e)
              : FileProblem.of(absolute, e);
      throw new UncheckedIOException(
          "cannot create the report directory " + target + ": " + problem, e);
    }
  }

  private static String stagingPrefix(Path absoluteTarget) {
    return "." + absoluteTarget.getFileName() + ".partial-";
  }

  /**
   * Puts back a report an interrupted commit set aside (when {@code target} is missing), and
   * removes one whose replacement did land. Only directories holding report.json are touched.
   */
  private static void recoverSetAside(Path target) throws IOException {
    String prefix = "." + target.getFileName() + ".old-";
    List<Path> setAside;
    try (Stream<Path> siblings = Files.list(target.getParent())) {
      setAside =
          siblings
              .filter(p -> p.getFileName().toString().startsWith(prefix))
              .filter(p -> Files.isRegularFile(p.resolve(ReportFiles.JSON)))
              .toList();
    }
    for (Path old : setAside) {
      if (!Files.exists(target)) {
        Files.move(old, target, StandardCopyOption.ATOMIC_MOVE);
      } else {
        deleteIfAble(old);
      }
    }
  }

  /** Where rank 0 writes. */
  public Path staging() {
    return staging;
  }

  public Path target() {
    return target;
  }

  /** Moves the staged files into place, replacing an earlier report of the same job. */
  public void commit() {
    try {
      Path old = null;
      Optional<Set<PosixFilePermission>> earlierMode = Optional.empty();
      if (Files.exists(target)) {
        earlierMode = posixMode(target);
        old = Files.createTempDirectory(target.getParent(), "." + target.getFileName() + ".old-");
        Files.delete(old);
        Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
      }
      try {
        moveIntoPlace();
      } catch (IOException e) {
        if (old != null && !Files.exists(target)) {
          Files.move(old, target, StandardCopyOption.ATOMIC_MOVE); // the earlier report stays
        }
        throw e;
      }
      // the staging folder was private; the report takes the earlier folder's mode, which its
      // owner chose, or else the mode of any folder the user creates
      Optional<Set<PosixFilePermission>> mode = earlierMode.or(() -> newFolderMode);
      if (mode.isPresent()) {
        Files.setPosixFilePermissions(target, mode.get());
      }
      if (old != null) {
        // the new report is in place: an earlier one that cannot be removed fails nothing
        deleteIfAble(old);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot move the report into " + target + ": " + FileProblem.of(target, e), e);
    }
  }

  private void moveIntoPlace() throws IOException {
    try {
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(staging, target);
    }
  }

  /**
   * The mode of a folder created in {@code staging} with no mode asked for: what the umask leaves
   * of rwxrwxrwx. Java cannot read the umask itself.
   */
  private static Optional<Set<PosixFilePermission>> newFolderMode(Path staging) throws IOException {
    Path probe = Files.createDirectory(staging.resolve(".mode"));
    try {
      return posixMode(probe);
    } finally {
      Files.delete(probe);
    }
  }

  /** Deletes the staged files (a failed run leaves no report behind, nor a parent it created). */
  public void discard() {
    try {
      deleteTree(staging);
      if (createdParent != null) {
        try (var entries = Files.list(createdParent)) {
          if (entries.findAny().isEmpty()) {
            Files.delete(createdParent);
          }
        }
      }
    } catch (IOException ignored) {
      // A hidden partial directory is all that can remain.
    }
  }

  private static Optional<Set<PosixFilePermission>> posixMode(Path directory) throws IOException {
    if (!Files.getFileStore(directory).supportsFileAttributeView(PosixFileAttributeView.class)) {
      return Optional.empty();
    }
    return Optional.of(Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS));
  }

  /** Deletes a report set aside; what cannot go stays hidden beside the target. */
  private static void deleteIfAble(Path old) {
    try {
      deleteTree(old);
    } catch (IOException e) {
      // a later run tries again
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            Files.delete(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
