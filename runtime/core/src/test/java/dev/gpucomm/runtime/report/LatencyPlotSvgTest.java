package dev.gpucomm.runtime.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.Algorithm;
import dev.gpucomm.api.v1alpha1.report.Reports;
import dev.gpucomm.api.v1alpha1.report.SizeResult;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class LatencyPlotSvgTest {
  static final String SVG_NS = "http://www.w3.org/2000/svg";

  static Document parse(String svg) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    return factory
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
  }

  static List<Element> elements(Element parent, String name) {
    NodeList nodes = parent.getElementsByTagNameNS(SVG_NS, name);
    List<Element> found = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      found.add((Element) nodes.item(i));
    }
    return found;
  }

  static Element group(Document svg, String cssClass) {
    return elements(svg.getDocumentElement(), "g").stream()
        .filter(g -> g.getAttribute("class").equals(cssClass))
        .findFirst()
        .orElseThrow();
  }

  static List<double[]> points(Element polyline) {
    List<double[]> points = new ArrayList<>();
    for (String pair : polyline.getAttribute("points").split(" ")) {
      String[] xy = pair.split(",");
      points.add(new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])});
    }
    return points;
  }

  @Test
  void onePolylineWithMarkersPerAlgorithm() throws Exception {
    Document svg = parse(LatencyPlotSvg.write(Reports.h200()));

    assertThat(svg.getDocumentElement().getLocalName()).isEqualTo("svg");
    List<Element> lines = elements(svg.getDocumentElement(), "polyline");
    assertThat(lines).hasSize(3);
    List<Element> algorithmGroups =
        elements(svg.getDocumentElement(), "g").stream()
            .filter(g -> g.getAttribute("class").equals("algorithm"))
            .toList();
    assertThat(algorithmGroups)
        .extracting(g -> g.getAttribute("data-algorithm"))
        .containsExactly("nccl", "oneshot", "twoshot");
    for (Element algorithm : algorithmGroups) {
      assertThat(points(elements(algorithm, "polyline").getFirst())).hasSize(4);
      assertThat(elements(algorithm, "circle")).hasSize(4);
    }
  }

  @Test
  void sizeGrowsRightwardsAndFasterSitsLower() throws Exception {
    Document svg = parse(LatencyPlotSvg.write(Reports.h200()));
    List<Element> lines = elements(svg.getDocumentElement(), "polyline");
    List<double[]> nccl = points(lines.get(0));
    List<double[]> twoshot = points(lines.get(2));

    for (int i = 1; i < nccl.size(); i++) {
      assertThat(nccl.get(i)[0]).isGreaterThan(nccl.get(i - 1)[0]);
    }
    // SVG y grows downwards: twoshot's shorter times are drawn below nccl's.
    for (int i = 0; i < nccl.size(); i++) {
      assertThat(twoshot.get(i)[1]).isGreaterThan(nccl.get(i)[1]);
    }
  }

  @Test
  void theHeuristicsChoiceIsRingedAtEverySize() throws Exception {
    Document svg = parse(LatencyPlotSvg.write(Reports.h200()));
    List<Element> rings = elements(group(svg, "chosen"), "circle");
    List<double[]> oneshot = points(elements(svg.getDocumentElement(), "polyline").get(1));

    assertThat(rings).hasSize(4);
    for (int i = 0; i < rings.size(); i++) {
      assertThat(Double.parseDouble(rings.get(i).getAttribute("cx"))).isEqualTo(oneshot.get(i)[0]);
      assertThat(Double.parseDouble(rings.get(i).getAttribute("cy"))).isEqualTo(oneshot.get(i)[1]);
    }
    assertThat(rings.getFirst().getTextContent())
        .startsWith("trtllm chose oneshot at 512 KB: tokens 32");
  }

  @Test
  void titleLegendAndTicksSpeakHumanUnits() throws Exception {
    Document svg = parse(LatencyPlotSvg.write(Reports.h200()));
    List<String> texts =
        elements(svg.getDocumentElement(), "text").stream().map(Element::getTextContent).toList();

    assertThat(texts.getFirst()).isEqualTo("allreduce · bf16 · world 4 — latency vs message size");
    assertThat(elements(group(svg, "x-axis"), "text"))
        .extracting(Element::getTextContent)
        .contains("512 KB", "1 MB", "2 MB", "4 MB", "message size per rank");
    assertThat(elements(group(svg, "y-axis"), "text"))
        .extracting(Element::getTextContent)
        .contains("10 µs", "20 µs", "50 µs");
    assertThat(elements(group(svg, "legend"), "text"))
        .extracting(Element::getTextContent)
        .containsExactly("nccl", "oneshot", "twoshot", "trtllm's choice");
  }

  @Test
  void markupInReasonsIsEscaped() throws Exception {
    SizeResult size =
        new SizeResult(
            1 << 20,
            null,
            Algorithm.TWOSHOT,
            "cc 9.0: 1048576 B < symmetric-memory limit & \"so\" → twoshot",
            List.of(
                Reports.measured(Algorithm.NCCL, 1 << 20, 30, null),
                Reports.measured(Algorithm.TWOSHOT, 1 << 20, 20, null)));
    String svg = LatencyPlotSvg.write(Reports.report(List.of(size), "cuda", "H100 <PCIe>"));

    Document document = parse(svg);

    assertThat(elements(group(document, "chosen"), "circle").getFirst().getTextContent())
        .endsWith("1048576 B < symmetric-memory limit & \"so\" → twoshot");
    assertThat(elements(document.getDocumentElement(), "polyline")).hasSize(2);
  }
}
