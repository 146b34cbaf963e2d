package dev.gpucomm.runtime.report.fetch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A connection from kubeconfig files, as kubectl reads them: the files of a KUBECONFIG list are
 * merged (the first to set a value wins), the current context (or a named one) picks the cluster,
 * user and namespace. Token, token file and client-certificate users are supported; exec and
 * auth-provider plugins are not.
 */
public final class KubeConfigFile {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private KubeConfigFile() {}

  public static KubeConnection load(List<Path> files, Optional<String> contextName) {
    List<Loaded> loaded = new ArrayList<>();
    for (Path file : files) {
      if (Files.isRegularFile(file)) {
        try {
          JsonNode root = YAML.readTree(file.toFile());
          if (root != null && root.isObject()) {
            loaded.add(new Loaded(file, root));
          }
        } catch (IOException e) {
          throw new KubeConfigException(
              file + ": not a readable kubeconfig (" + e.getMessage() + ")");
        }
      }
    }
    if (loaded.isEmpty()) {
      throw new KubeConfigException("no kubeconfig file among " + files);
    }
    String source = loaded.getFirst().file().toString();
    String context =
        contextName
            .or(() -> firstText(loaded, "current-context"))
            .orElseThrow(() -> new KubeConfigException(source + ": no current-context set"));
    JsonNode contextNode =
        named(loaded, "contexts", context, "context")
            .orElseThrow(() -> new KubeConfigException(source + ": no context named " + context));
    String clusterName = text(contextNode, "cluster").orElse("");
    String userName = text(contextNode, "user").orElse("");
    Entry cluster =
        namedEntry(loaded, "clusters", clusterName, "cluster")
            .orElseThrow(
                () ->
                    new KubeConfigException(
                        source + ": context " + context + " names no known cluster"));
    Optional<Entry> user = namedEntry(loaded, "users", userName, "user");
    String server =
        text(cluster.node(), "server")
            .orElseThrow(
                () ->
                    new KubeConfigException(
                        source + ": cluster " + clusterName + " has no server"));
    String namespace = text(contextNode, "namespace").orElse("default");
    URI serverUri = URI.create(server);
    Optional<SSLContext> tls =
        serverUri.getScheme().equals("https") ? Optional.of(tls(cluster, user)) : Optional.empty();
    return new KubeConnection(
        serverUri,
        tls,
        user.flatMap(KubeConfigFile::authorization),
        namespace,
        source + " (context " + context + ")");
  }

  private static SSLContext tls(Entry cluster, Optional<Entry> user) {
    try {
      TrustManager[] trust;
      if (cluster.node().path("insecure-skip-tls-verify").asBoolean(false)) {
        trust = new TrustManager[] {new TrustingEveryone()};
      } else {
        Optional<byte[]> ca = bytes(cluster, "certificate-authority-data", "certificate-authority");
        if (ca.isPresent()) {
          KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
          trusted.load(null, null);
          int i = 0;
          for (X509Certificate certificate :
              Pem.certificates(ca.get(), cluster.file() + ": certificate authority")) {
            trusted.setCertificateEntry("ca-" + i++, certificate);
          }
          TrustManagerFactory factory =
              TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
          factory.init(trusted);
          trust = factory.getTrustManagers();
        } else {
          trust = null; // the JDK's default trust store
        }
      }
      javax.net.ssl.KeyManager[] keys = null;
      if (user.isPresent()) {
        Optional<byte[]> certificate =
            bytes(user.get(), "client-certificate-data", "client-certificate");
        Optional<byte[]> key = bytes(user.get(), "client-key-data", "client-key");
        if (certificate.isPresent() && key.isPresent()) {
          String where = user.get().file() + ": client ";
          PrivateKey privateKey = Pem.privateKey(key.get(), where + "key");
          List<X509Certificate> chain = Pem.certificates(certificate.get(), where + "certificate");
          KeyStore keyStore = KeyStore.getInstance("PKCS12");
          keyStore.load(null, null);
          char[] password = new char[0];
          keyStore.setKeyEntry(
              "client", privateKey, password, chain.toArray(X509Certificate[]::new));
          KeyManagerFactory factory =
              KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
          factory.init(keyStore, password);
          keys = factory.getKeyManagers();
        }
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys, trust, new SecureRandom());
      return context;
    } catch (IOException | java.security.GeneralSecurityException e) {
      throw new KubeConfigException(
          cluster.file() + ": cannot set up TLS (" + e.getMessage() + ")");
    }
  }

  private static Optional<String> authorization(Entry user) {
    JsonNode node = user.node();
    if (node.has("exec") || node.has("auth-provider")) {
      if (!node.has("token") && !node.has("tokenFile")) {
        throw new KubeConfigException(
            user.file()
                + ": the user's credentials come from an exec or auth-provider plugin, which gpucomm"
                + " does not run; use a token or a client certificate (or fetch the ConfigMap"
                + " with kubectl)");
      }
    }
    Optional<String> token = text(node, "token");
    if (token.isEmpty()) {
      token =
          text(node, "tokenFile")
              .map(
                  file ->
                      readString(user.file().resolveSibling(file), user.file() + ": tokenFile"));
    }
    if (token.isPresent()) {
      return Optional.of("Bearer " + token.get().strip());
    }
    Optional<String> username = text(node, "username");
    if (username.isPresent()) {
      String credentials = username.get() + ":" + text(node, "password").orElse("");
      return Optional.of(
          "Basic "
              + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
    }
    return Optional.empty();
  }

  /** Inline base64 data, or a file (relative to the kubeconfig that names it). */
  private static Optional<byte[]> bytes(Entry entry, String dataField, String fileField) {
    Optional<String> data = text(entry.node(), dataField);
    if (data.isPresent()) {
      try {
        return Optional.of(Base64.getMimeDecoder().decode(data.get()));
      } catch (IllegalArgumentException e) {
        throw new KubeConfigException(entry.file() + ": " + dataField + " is not base64");
      }
    }
    return text(entry.node(), fileField)
        .map(file -> readString(entry.file().resolveSibling(file), entry.file() + ": " + fileField))
        .map(s -> s.getBytes(StandardCharsets.US_ASCII));
  }

  private static String readString(Path file, String what) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new KubeConfigException(what + " " + file + " cannot be read");
    }
  }

  private static Optional<String> firstText(List<Loaded> loaded, String field) {
    return loaded.stream().map(l -> text(l.root(), field)).flatMap(Optional::stream).findFirst();
  }

  private static Optional<JsonNode> named(
      List<Loaded> loaded, String list, String name, String field) {
    return namedEntry(loaded, list, name, field).map(Entry::node);
  }

  private static Optional<Entry> namedEntry(
      List<Loaded> loaded, String list, String name, String field) {
    for (Loaded file : loaded) {
      for (JsonNode item : file.root().path(list)) {
        if (name.equals(item.path("name").asText(null))) {
          return Optional.of(new Entry(file.file(), item.path(field)));
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() || value.asText().isEmpty()
        ? Optional.empty()
        : Optional.of(value.asText());
  }

  private record Loaded(Path file, JsonNode root) {}

  /** One cluster or user entry and the file it came from (relative paths resolve against it). */
  private record Entry(Path file, JsonNode node) {}

  /**
   * For insecure-skip-tls-verify: the user asked not to check the server's certificate (nor its
   * name, which an extended trust manager is also the one to check).
   */
  private static final class TrustingEveryone extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
