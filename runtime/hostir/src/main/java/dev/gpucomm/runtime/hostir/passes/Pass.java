package dev.gpucomm.runtime.hostir.passes;

import dev.gpucomm.api.v1alpha1.PassName;
import dev.gpucomm.runtime.hostir.ir.Program;

/** A rewrite of host programs: a pure function, the same program in gives the same program out. */
public interface Pass {
  PassName name();

  Program apply(Program program);
}
