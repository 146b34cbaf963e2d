package dev.gpucomm.api.v1alpha1.crd;

import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of a schema's x-kubernetes-validations, compiled: given {@code self} (and {@code
 * oldSelf} for a transition rule), the message the API server refuses the object with, if any.
 */
record CompiledRule(String rule, String message, CelRuntime.Program program, boolean transition) {

  Optional<String> refusal(Object self, Object oldSelf) {
    Map<String, Object> variables = new HashMap<>();
    variables.put("self", self);
    if (transition) {
      variables.put("oldSelf", oldSelf);
    }
    Object result;
    try {
      result = program.eval(variables);
    } catch (CelEvaluationException e) {
      // The server refuses the object when a rule fails to evaluate, in these words.
      return Optional.of(e.getMessage() + " evaluating rule: " + rule);
    }
    if (result instanceof Boolean admitted) {
      return admitted ? Optional.empty() : Optional.of(message);
    }
    return Optional.of("rule evaluated to " + result + ", not a bool: " + rule);
  }
}
