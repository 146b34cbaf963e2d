package dev.gpucomm.runtime.device.cpu;

import java.util.List;

/** CPU numbers written as Linux writes them in {@code Cpus_allowed_list}: {@code 0-3,8,10-11}. */
final class CpuList {
  private CpuList() {}

  /** {@code cpus}, ascending, with runs of consecutive numbers as ranges. */
  static String format(List<Integer> cpus) {
    StringBuilder text = new StringBuilder();
    int index = 0;
    while (index < cpus.size()) {
      int first = cpus.get(index);
      int last = first;
      while (index + 1 < cpus.size() && cpus.get(index + 1) == last + 1) {
        last = cpus.get(++index);
      }
      if (!text.isEmpty()) {
        text.append(',');
      }
      text.append(first);
      if (last != first) {
        text.append('-').append(last);
      }
      index++;
    }
    return text.toString();
  }
}
