package dev.gpucomm.runtime.collective.cuda.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DiagnosticsSessionJsonTest {
  @Test
  void rowsWithQuotesInTheirLabelsAndTimingsThatNeverRanAreStillJson() throws Exception {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("runner", "oneshot \"lamport\"\\ws");
    row.put("bytes", 524288);
    row.put("median_us", Double.NaN);
    Map<String, Object> second = new LinkedHashMap<>();
    second.put("runner", "nccl");
    second.put("median_us", 4.25);

    String text = DiagnosticsSession.rowsAsJson(List.of(row, second));

    JsonNode rows = new ObjectMapper().readTree(text);
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).get("runner").asText()).isEqualTo("oneshot \"lamport\"\\ws");
    assertThat(rows.get(0).get("bytes").asInt()).isEqualTo(524288);
    assertThat(rows.get(0).get("median_us").asText()).isEqualTo("NaN");
    assertThat(rows.get(1).get("median_us").asDouble()).isEqualTo(4.25);
    assertThat(text.lines()).hasSize(4); // a row a line, between the brackets
  }

  @Test
  void noRowsIsAnEmptyArray() throws Exception {
    assertThat(new ObjectMapper().readTree(DiagnosticsSession.rowsAsJson(List.of()))).isEmpty();
  }
}
