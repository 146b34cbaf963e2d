package dev.gpucomm.runtime.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gpucomm.api.v1alpha1.validation.EchoedValue;
import java.math.BigInteger;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Reads one YAML document into a tree the way kubectl does before it sends an object: anchors and
 * aliases are resolved and {@code <<} merge keys applied, so the API's rules then see plain values.
 * Expansion is bounded, so a few lines of nested aliases cannot grow into millions of values, nor
 * one long aliased string into gigabytes.
 */
final class YamlTree {
  /** Values the expanded document may hold; a CommJob has a few dozen. */
  static final int MAX_NODES = 100_000;

  /**
   * Characters the expanded document's keys and values may hold: a job file's own limit, so that
   * one long string aliased many times cannot grow past what a file could say outright.
   */
  static final long MAX_TEXT_CHARS = JobLoader.MAX_JOB_BYTES;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private int nodes;
  private long textChars;

  /** The nodes being read, the document's root down to this one: an alias to one loops. */
  private final Set<Node> open = Collections.newSetFromMap(new IdentityHashMap<>());

  private YamlTree() {}

  /**
   * The document's tree, or null when the text holds none.
   *
   * @throws YAMLException for malformed YAML, a second document, a duplicate key or an expansion
   *     past {@link #MAX_NODES}; a {@link MarkedYAMLException} where the place is known
   */
  static JsonNode read(String text) {
    LoaderOptions options = new LoaderOptions();
    options.setAllowRecursiveKeys(false);
    Parser parser = new ParserImpl(new StreamReader(text), options);
    Composer composer = new Composer(parser, new Resolver(), options);
    if (!composer.checkNode()) {
      return null;
    }
    Node root = composer.getNode();
    // peek, not compose: the second document may not even be well-formed
    if (!parser.checkEvent(Event.ID.StreamEnd)) {
      throw new SecondDocumentException(parser.peekEvent().getStartMark());
    }
    return new YamlTree().value(root);
  }

  /** Thrown when a document follows the first: a file holds one CommJob. */
  static final class SecondDocumentException extends Problem {
    SecondDocumentException(Mark mark) {
      super("more than one YAML document (a file holds one CommJob)", mark);
    }
  }

  /** A problem this reader finds, placed like the scanner's own. */
  static class Problem extends MarkedYAMLException {
    Problem(String problem, Mark mark) {
      super(null, null, problem, mark);
    }
  }

  private JsonNode value(Node node) {
    if (++nodes > MAX_NODES) {
      throw new Problem(
          "the file holds more than "
              + MAX_NODES
              + " values, counting what aliases repeat (a CommJob has dozens)",
          node.getStartMark());
    }
    if (!open.add(node)) {
      // snakeyaml composes `a: &x [1, *x]` into a list that holds itself; reading it would not end
      throw new Problem("an alias refers to the value that holds it", node.getStartMark());
    }
    try {
      return switch (node) {
        case MappingNode mapping -> object(mapping);
        case SequenceNode sequence -> array(sequence);
        case ScalarNode scalar -> scalar(counted(scalar));
        default -> throw new Problem("unexpected YAML node", node.getStartMark());
      };
    } finally {
      open.remove(node);
    }
  }

  private ScalarNode counted(ScalarNode scalar) {
    textChars += scalar.getValue().length();
    if (textChars > MAX_TEXT_CHARS) {
      throw new Problem(
          "aliases expand to more than " + MAX_TEXT_CHARS + " characters (a job file's limit)",
          scalar.getStartMark());
    }
    return scalar;
  }

  private ObjectNode object(MappingNode mapping) {
    ObjectNode object = NODES.objectNode();
    Set<String> written = new HashSet<>();
    ObjectNode merged = NODES.objectNode();
    for (NodeTuple entry : mapping.getValue()) {
      if (!(entry.getKeyNode() instanceof ScalarNode key)) {
        throw new Problem("a key must be a plain value", entry.getKeyNode().getStartMark());
      }
      if (key.getTag().equals(Tag.MERGE)) {
        merge(merged, entry.getValueNode());
        continue;
      }
      String field = counted(key).getValue();
      if (!written.add(field)) {
        throw new Problem("duplicate key " + EchoedValue.quoted(field), key.getStartMark());
      }
      object.set(field, value(entry.getValueNode()));
    }
    // keys written in the mapping itself win over merged ones, as YAML's merge key says
    merged.properties().forEach(entry -> object.putIfAbsent(entry.getKey(), entry.getValue()));
    return object;
  }

  private void merge(ObjectNode into, Node source) {
    JsonNode value = value(source);
    if (value.isObject()) {
      value.properties().forEach(entry -> into.putIfAbsent(entry.getKey(), entry.getValue()));
      return;
    }
    if (value.isArray()) {
      for (JsonNode item : value) {
        if (!item.isObject()) {
          throw new Problem("merge key << takes mappings only", source.getStartMark());
        }
        item.properties().forEach(entry -> into.putIfAbsent(entry.getKey(), entry.getValue()));
      }
      return;
    }
    throw new Problem("merge key << takes a mapping or a list of mappings", source.getStartMark());
  }

  private ArrayNode array(SequenceNode sequence) {
    ArrayNode array = NODES.arrayNode();
    for (Node item : sequence.getValue()) {
      array.add(value(item));
    }
    return array;
  }

  /** A plain scalar typed by YAML's implicit resolution, as kubectl's reader types it. */
  private static JsonNode scalar(ScalarNode scalar) {
    String text = scalar.getValue();
    Tag tag = scalar.getTag();
    if (tag.equals(Tag.NULL)) {
      return NODES.nullNode();
    }
    if (tag.equals(Tag.BOOL)) {
      // an explicit !!bool on any other text stays text, which the field's type then refuses
      return switch (text.toLowerCase(Locale.ROOT)) {
        case "true", "yes", "on" -> NODES.booleanNode(true);
        case "false", "no", "off" -> NODES.booleanNode(false);
        default -> NODES.textNode(text);
      };
    }
    if (tag.equals(Tag.INT)) {
      return integer(scalar);
    }
    if (tag.equals(Tag.FLOAT)) {
      return decimal(scalar);
    }
    return NODES.textNode(text);
  }

  private static JsonNode integer(ScalarNode scalar) {
    String text = scalar.getValue().replace("_", "");
    boolean negative = text.startsWith("-");
    String digits = text.startsWith("-") || text.startsWith("+") ? text.substring(1) : text;
    BigInteger value;
    try {
      if (digits.startsWith("0b")) {
        value = new BigInteger(digits.substring(2), 2);
      } else if (digits.startsWith("0x")) {
        value = new BigInteger(digits.substring(2), 16);
      } else if (digits.length() > 1 && digits.startsWith("0")) {
        value = new BigInteger(digits.substring(1), 8);
      } else if (digits.contains(":")) {
        // YAML 1.1's base 60 (1:0 is 60): kubectl's reader keeps it a string, and so do we
        return NODES.textNode(scalar.getValue());
      } else {
        value = new BigInteger(digits);
      }
    } catch (NumberFormatException e) {
      return NODES.textNode(scalar.getValue());
    }
    value = negative ? value.negate() : value;
    if (value.bitLength() < Integer.SIZE) {
      return NODES.numberNode(value.intValue());
    }
    if (value.bitLength() < Long.SIZE) {
      return NODES.numberNode(value.longValue());
    }
    return NODES.numberNode(value);
  }

  private static JsonNode decimal(ScalarNode scalar) {
    String text = scalar.getValue().replace("_", "").toLowerCase(Locale.ROOT);
    return switch (text) {
      case ".inf", "+.inf" -> NODES.numberNode(Double.POSITIVE_INFINITY);
      case "-.inf" -> NODES.numberNode(Double.NEGATIVE_INFINITY);
      case ".nan" -> NODES.numberNode(Double.NaN);
      default -> {
        try {
          yield NODES.numberNode(Double.parseDouble(text));
        } catch (NumberFormatException e) {
          yield NODES.textNode(scalar.getValue());
        }
      }
    };
  }
}
