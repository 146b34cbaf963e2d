/**
 * Element types of collective buffers on the host: bf16 and fp16 conversions with round to nearest
 * even ({@link dev.gpucomm.runtime.numeric.Bf16}, {@link dev.gpucomm.runtime.numeric.Fp16}),
 * reading and writing elements of a memory segment by dtype ({@link
 * dev.gpucomm.runtime.numeric.ElementCodec}), seeded random inputs that every rank and the
 * validator can regenerate, and the error bound a validator should allow for results accumulated in
 * fp32 ({@link dev.gpucomm.runtime.numeric.ReductionTolerance}).
 */
package dev.gpucomm.runtime.numeric;
