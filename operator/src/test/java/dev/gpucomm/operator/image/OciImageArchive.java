package dev.gpucomm.operator.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * An OCI image tarball opened the way a registry or a container runtime reads it: {@code
 * index.json} names the manifest, the manifest names the config and the layers, each a blob under
 * {@code blobs/sha256/}.
 */
public final class OciImageArchive {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path layout;
  private final JsonNode index;
  private final JsonNode manifest;
  private final JsonNode config;

  private OciImageArchive(Path layout) throws IOException {
    this.layout = layout;
    this.index = JSON.readTree(layout.resolve("index.json").toFile());
    JsonNode manifests = index.path("manifests");
    if (manifests.size() != 1) {
      throw new IOException("index.json lists " + manifests.size() + " manifests, not one");
    }
    this.manifest = JSON.readTree(blob(manifests.get(0).path("digest").asText()).toFile());
    this.config = JSON.readTree(blob(manifest.path("config").path("digest").asText()).toFile());
  }

  /** Unpacks {@code tarball} into {@code layoutDir} and reads its index, manifest and config. */
  public static OciImageArchive open(Path tarball, Path layoutDir)
      throws IOException, InterruptedException {
    Files.createDirectories(layoutDir);
    tar("-xf", tarball.toString(), "-C", layoutDir.toString());
    return new OciImageArchive(layoutDir);
  }

  /** The {@code oci-layout} marker file's content. */
  public String ociLayout() throws IOException {
    return Files.readString(layout.resolve("oci-layout"), StandardCharsets.UTF_8);
  }

  public JsonNode index() {
    return index;
  }

  public JsonNode manifest() {
    return manifest;
  }

  /** The image configuration (architecture, os, and under "config" entrypoint, user, labels). */
  public JsonNode config() {
    return config;
  }

  /** The layers' digests, base first. */
  public List<String> layerDigests() {
    var digests = new ArrayList<String>();
    manifest.path("layers").forEach(layer -> digests.add(layer.path("digest").asText()));
    return digests;
  }

  /** Every entry of one layer: its path (no leading slash or "./") and its mode bits. */
  public Map<String, Integer> layerEntries(String digest) throws IOException {
    var entries = new TreeMap<String, Integer>();
    try (InputStream file = new BufferedInputStream(Files.newInputStream(blob(digest)));
        var gzip = new GzipCompressorInputStream(file);
        var tar = new TarArchiveInputStream(gzip)) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        String name = entry.getName().replaceFirst("^\\./", "").replaceFirst("^/", "");
        entries.put(name.replaceFirst("/$", ""), entry.getMode());
      }
    }
    return entries;
  }

  /** Unpacks every layer, base first, into {@code root}: the container's file system. */
  public void extractRootFilesystem(Path root) throws IOException, InterruptedException {
    Files.createDirectories(root);
    for (String digest : layerDigests()) {
      tar("-xzpf", blob(digest).toString(), "-C", root.toString());
    }
  }

  private Path blob(String digest) throws IOException {
    if (!digest.startsWith("sha256:")) {
      throw new IOException("unexpected digest " + digest);
    }
    return layout.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
  }

  private static void tar(String... args) throws IOException, InterruptedException {
    var command = new ArrayList<String>();
    command.add("tar");
    command.addAll(List.of(args));
    Process tar = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!tar.waitFor(120, TimeUnit.SECONDS) || tar.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + output.strip());
    }
  }
}
