package dev.gpucomm.runtime.heuristic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.Collective;
import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.api.v1alpha1.Heuristic;
import dev.gpucomm.api.v1alpha1.HeuristicName;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class HeuristicsTest {
  private final List<String> loaded = new ArrayList<>();
  private final Function<String, TuningTable> loader =
      reference -> {
        loaded.add(reference);
        return TuningTableTest.h200Table();
      };

  @Test
  void noSpecOrNoNameMeansTrtllm() {
    assertThat(Heuristics.create(null, loader)).isInstanceOf(TrtllmHeuristic.class);
    assertThat(Heuristics.create(new Heuristic(), loader)).isInstanceOf(TrtllmHeuristic.class);
    assertThat(loaded).isEmpty();
  }

  @Test
  void eachNameBuildsItsHeuristic() {
    assertThat(Heuristics.create(new Heuristic().withName(HeuristicName.VLLM), loader).name())
        .isEqualTo("vllm");
    AlgorithmHeuristic fixed =
        Heuristics.create(
            new Heuristic().withName(HeuristicName.FIXED).withFixedAlgorithm(Algorithm.RING),
            loader);
    assertThat(fixed).isEqualTo(fixed).extracting(AlgorithmHeuristic::name).isEqualTo("fixed");
    assertThat(((FixedHeuristic) fixed).algorithm()).isEqualTo(Algorithm.RING);
  }

  @Test
  void measuredLoadsItsTableByReference() {
    Heuristic spec = new Heuristic().withName(HeuristicName.MEASURED).withTuningRef("h200-nvlink");

    AlgorithmHeuristic heuristic =
        Heuristics.create(spec, loader, Collective.ALLREDUCE, 4, DType.BF16, "NVIDIA H200");

    assertThat(loaded).containsExactly("h200-nvlink");
    assertThat(((MeasuredHeuristic) heuristic).table().name()).isEqualTo("h200-nvlink");
  }

  @Test
  void incompleteSpecsNameTheMissingField() {
    assertThatThrownBy(
            () -> Heuristics.create(new Heuristic().withName(HeuristicName.FIXED), loader))
        .hasMessage("heuristic.fixedAlgorithm is required when heuristic.name is fixed");
    assertThatThrownBy(
            () -> Heuristics.create(new Heuristic().withName(HeuristicName.MEASURED), loader))
        .hasMessage("heuristic.tuningRef is required when heuristic.name is measured");
    assertThatThrownBy(
            () ->
                Heuristics.create(
                    new Heuristic().withName(HeuristicName.MEASURED).withTuningRef("lab"),
                    loader,
                    Collective.ALLREDUCE,
                    8,
                    DType.BF16,
                    "NVIDIA H200"))
        .hasMessageContaining("tuning table h200-nvlink has no curve for world size 8");
    assertThatThrownBy(
            () ->
                Heuristics.create(
                    new Heuristic().withName(HeuristicName.MEASURED).withTuningRef("lab"),
                    reference -> null))
        .hasMessage("heuristic.tuningRef: no tuning table found for 'lab'");
  }
}
