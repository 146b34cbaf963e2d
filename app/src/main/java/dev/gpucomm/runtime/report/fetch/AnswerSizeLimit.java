package dev.gpucomm.runtime.report.fetch;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stops reading an answer of the API server once its body passes a limit. Fabric8 holds an answer
 * whole before it parses it, so a server (or a proxy in front of it) that sends without end would
 * fill the heap; the objects {@code gpucomm report} reads are far smaller (the API server stores
 * none over about 1.5 MiB). Whether it stopped one is kept, for the message.
 */
final class AnswerSizeLimit implements Interceptor {
  static final String NAME = "gpucomm-answer-size-limit";

  private final long maxBytes;
  private final AtomicBoolean exceeded = new AtomicBoolean();

  AnswerSizeLimit(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  long maxBytes() {
    return maxBytes;
  }

  /** Whether an answer was stopped for its size. */
  boolean exceeded() {
    return exceeded.get();
  }

  @Override
  public AsyncBody.Consumer<List<ByteBuffer>> consumer(
      AsyncBody.Consumer<List<ByteBuffer>> consumer, HttpRequest request) {
    AtomicLong received = new AtomicLong();
    return (buffers, body) -> {
      long bytes = buffers.stream().mapToLong(ByteBuffer::remaining).sum();
      if (received.addAndGet(bytes) > maxBytes) {
        exceeded.set(true);
        body.cancel();
        return;
      }
      consumer.consume(buffers, body);
    };
  }
}
