package dev.gpucomm.runtime.spec;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A Jackson mix-in for CommJobSpec that skips spec.template. The template is the operator's
 * business (an overlay of the pods it creates) and ranks never read it; skipping it spares every
 * rank process the deserializers of the whole Kubernetes pod model, which otherwise dominate its
 * start-up. The API server keeps the template as written (the CRD preserves unknown fields there).
 */
@JsonIgnoreProperties({"template"})
abstract class WithoutPodTemplate {}
