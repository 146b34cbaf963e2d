package dev.gpucomm.api.v1alpha1.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The x-kubernetes-validations rules of a CRD's schema, compiled with CEL and evaluated as the API
 * server evaluates them: once the schema's defaults are filled in, each rule runs with {@code self}
 * bound to the value at its place in the schema, wherever the object has one; a transition rule
 * (one that reads {@code oldSelf}) runs only on update, and only where the old object has a value
 * at that place. A CRD the server would refuse (a rule that does not compile, a reason it does not
 * take, a transition rule it cannot correlate) is refused here when the rules are compiled.
 *
 * <p>Not modelled: the server's cost limits, validation ratcheting (an update that leaves an
 * invalid value as it was is admitted), and the order-free equality of set and map lists. The rules
 * see the values as dynamic maps, lists and scalars, not as the schema's object types. Kubernetes
 * adds CEL libraries of its own (extended strings, lists, regex, URLs, quantities and more); no
 * rule here calls one, so none is declared, and a rule that does fails to compile until it is.
 */
public final class CelValidationRules {
  /** The reasons the server takes for a rule; it refuses a CRD whose rule names another. */
  private static final List<String> SUPPORTED_REASONS =
      List.of(
          "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate");

  /** How much of a generateName the server keeps before it appends five random characters. */
  private static final int MAX_GENERATE_NAME_LENGTH = 58;

  /**
   * Five characters of the alphabet the server draws the suffix from (bcdfghjklmnpqrstvwxz2456789):
   * lower-case letters and digits, so any five pass or fail the name rules alike.
   */
  private static final String GENERATED_SUFFIX = "x2b7z";

  private static final Set<String> MODELLED_KEYS = Set.of("rule", "message", "reason");

  /**
   * As the server's CEL (cel-go) behaves: matches() finds the pattern anywhere (RE2), integer
   * overflow is an error rather than a wrap, and an int compares with a double.
   */
  private static final CelOptions KUBERNETES_CEL =
      CelOptions.current().enableHeterogeneousNumericComparisons(true).build();

  private final JsonNode schema;
  private final SchemaDefaults defaults;
  private final Map<JsonNode, List<CompiledRule>> rulesBySchema = new IdentityHashMap<>();

  /** Compiles every rule of {@code openApiV3Schema}, the schema of one version of the CRD. */
  public CelValidationRules(JsonNode openApiV3Schema) {
    this.schema = openApiV3Schema;
    this.defaults = new SchemaDefaults(openApiV3Schema);
    CelCompiler compiler =
        CelCompilerFactory.standardCelCompilerBuilder()
            .setOptions(KUBERNETES_CEL)
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("self", SimpleType.DYN)
            .addVar("oldSelf", SimpleType.DYN)
            .build();
    CelRuntime runtime =
        CelRuntimeFactory.standardCelRuntimeBuilder().setOptions(KUBERNETES_CEL).build();
    compileAll(compiler, runtime, openApiV3Schema, "", true);
  }

  /** What the server refuses a new object for, each "path: message"; empty when it admits it. */
  public List<String> onCreate(JsonNode object) {
    List<String> refusals = new ArrayList<>();
    check(schema, defaults.appliedTo(namedFromGenerateName(object)), null, "", refusals);
    return refusals;
  }

  /** What the server refuses an update from {@code oldObject} to {@code newObject} for. */
  public List<String> onUpdate(JsonNode oldObject, JsonNode newObject) {
    List<String> refusals = new ArrayList<>();
    check(schema, defaults.appliedTo(newObject), defaults.appliedTo(oldObject), "", refusals);
    return refusals;
  }

  private void compileAll(
      CelCompiler compiler,
      CelRuntime runtime,
      JsonNode schema,
      String path,
      boolean correlatable) {
    List<CompiledRule> rules = new ArrayList<>();
    for (JsonNode entry : schema.path("x-kubernetes-validations")) {
      rules.add(compile(compiler, runtime, entry, path, correlatable));
    }
    if (!rules.isEmpty()) {
      rulesBySchema.put(schema, rules);
    }
    schema
        .path("properties")
        .properties()
        .forEach(
            property ->
                compileAll(
                    compiler,
                    runtime,
                    property.getValue(),
                    child(path, property.getKey()),
                    correlatable));
    if (schema.path("additionalProperties").isObject()) {
      compileAll(compiler, runtime, schema.get("additionalProperties"), path + "[*]", correlatable);
    }
    if (schema.has("items")) {
      // Old and new items pair up only in a map list, by their keys.
      boolean mapList = "map".equals(schema.path("x-kubernetes-list-type").asText());
      compileAll(compiler, runtime, schema.get("items"), path + "[*]", correlatable && mapList);
    }
  }

  private static CompiledRule compile(
      CelCompiler compiler, CelRuntime runtime, JsonNode entry, String path, boolean correlatable) {
    String where = (path.isEmpty() ? "the root" : path) + ": ";
    for (Iterator<String> keys = entry.fieldNames(); keys.hasNext(); ) {
      String key = keys.next();
      if (!MODELLED_KEYS.contains(key)) {
        throw new IllegalStateException(
            where + "x-kubernetes-validations." + key + " is not modelled");
      }
    }
    String rule = entry.path("rule").asText();
    if (entry.has("reason") && !SUPPORTED_REASONS.contains(entry.get("reason").asText())) {
      throw new IllegalStateException(
          where
              + "the API server refuses reason "
              + entry.get("reason").asText()
              + " of rule "
              + rule
              + "; it takes "
              + SUPPORTED_REASONS);
    }
    CelAbstractSyntaxTree ast;
    try {
      ast = compiler.compile(rule).getAst();
    } catch (CelValidationException e) {
      throw new IllegalStateException(where + "rule does not compile: " + e.getMessage(), e);
    }
    if (!ast.getResultType().equals(SimpleType.BOOL)
        && !ast.getResultType().equals(SimpleType.DYN)) {
      throw new IllegalStateException(
          where + "rule yields " + ast.getResultType() + ", not a bool: " + rule);
    }
    boolean transition =
        ast.getReferenceMap().values().stream()
            .anyMatch(reference -> reference.name().equals("oldSelf"));
    if (transition && !correlatable) {
      throw new IllegalStateException(
          where
              + "the API server refuses a transition rule under a list that is not a map list: "
              + rule);
    }
    String message = entry.has("message") ? entry.get("message").asText() : "failed rule: " + rule;
    try {
      return new CompiledRule(rule, message, runtime.createProgram(ast), transition);
    } catch (CelEvaluationException e) {
      throw new IllegalStateException(where + "rule does not plan: " + e.getMessage(), e);
    }
  }

  private void check(
      JsonNode schema, JsonNode value, JsonNode oldValue, String path, List<String> refusals) {
    List<CompiledRule> rules = rulesBySchema.getOrDefault(schema, List.of());
    if (!rules.isEmpty()) {
      Object self = CelInput.of(schema, visibleToRules(value, path));
      Object oldSelf =
          oldValue == null ? null : CelInput.of(schema, visibleToRules(oldValue, path));
      for (CompiledRule rule : rules) {
        if (rule.transition() && oldValue == null) {
          continue;
        }
        rule.refusal(self, oldSelf)
            .ifPresent(message -> refusals.add(path.isEmpty() ? message : path + ": " + message));
      }
    }
    if (value.isObject()) {
      value
          .properties()
          .forEach(
              field -> {
                JsonNode fieldSchema = schema.path("properties").path(field.getKey());
                if (fieldSchema.isMissingNode()) {
                  fieldSchema = schema.path("additionalProperties");
                }
                if (fieldSchema.isObject()) {
                  JsonNode oldField = oldValue == null ? null : oldValue.get(field.getKey());
                  check(
                      fieldSchema,
                      field.getValue(),
                      oldField,
                      child(path, field.getKey()),
                      refusals);
                }
              });
    } else if (value.isArray()) {
      for (int index = 0; index < value.size(); index++) {
        JsonNode item = value.get(index);
        check(
            schema.path("items"),
            item,
            correlatedItem(schema, item, oldValue),
            path + "[" + index + "]",
            refusals);
      }
    }
  }

  /** The old item with the same keys as {@code item}, in a map list; no old item otherwise. */
  private static JsonNode correlatedItem(JsonNode listSchema, JsonNode item, JsonNode oldList) {
    if (oldList == null || !"map".equals(listSchema.path("x-kubernetes-list-type").asText())) {
      return null;
    }
    for (JsonNode oldItem : oldList) {
      boolean sameKeys = true;
      for (JsonNode key : listSchema.path("x-kubernetes-list-map-keys")) {
        sameKeys &= item.path(key.asText()).equals(oldItem.path(key.asText()));
      }
      if (sameKeys) {
        return oldItem;
      }
    }
    return null;
  }

  /**
   * The object as the server has it when the rules run on create: one with only a generateName has
   * been named by then, generateName cut to 58 characters and five random ones appended.
   */
  private static JsonNode namedFromGenerateName(JsonNode object) {
    JsonNode metadata = object.path("metadata");
    if (metadata.has("name") || !metadata.hasNonNull("generateName")) {
      return object;
    }
    String base = metadata.get("generateName").asText();
    ObjectNode named = object.deepCopy();
    ((ObjectNode) named.get("metadata"))
        .put(
            "name",
            base.substring(0, Math.min(base.length(), MAX_GENERATE_NAME_LENGTH))
                + GENERATED_SUFFIX);
    return named;
  }

  /** At the root, rules see only metadata.name and metadata.generateName of the metadata. */
  private static JsonNode visibleToRules(JsonNode value, String path) {
    if (!path.isEmpty() || !(value.get("metadata") instanceof ObjectNode metadata)) {
      return value;
    }
    ObjectNode root = value.deepCopy();
    ObjectNode visible = root.putObject("metadata");
    for (String field : List.of("name", "generateName")) {
      if (metadata.has(field)) {
        visible.set(field, metadata.get(field));
      }
    }
    return root;
  }

  private static String child(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }
}
