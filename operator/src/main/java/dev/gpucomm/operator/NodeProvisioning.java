package dev.gpucomm.operator;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What the cluster's node autoscaler says of pods the scheduler cannot place: that a node is on its
 * way (cluster-autoscaler's TriggeredScaleUp, Karpenter's Nominated), or that none will come
 * (cluster-autoscaler's NotTriggerScaleUp, Karpenter's own FailedScheduling). Autoscalers say it
 * only in Events on the pod; nothing in the pod's status changes until the node has joined, which
 * for GPU nodes takes minutes.
 *
 * <p>The Events are read only when first asked, and asked for only while a pod is unschedulable
 * past its scheduling timeout.
 */
final class NodeProvisioning {
  /** Reasons under which an autoscaler says a pod's node is on its way. */
  static final List<String> PROMISES = List.of("TriggeredScaleUp", "Nominated");

  /** The reason under which cluster-autoscaler says no node group it has would take a pod. */
  static final String DECLINE = "NotTriggerScaleUp";

  /**
   * The reason under which Karpenter says no node pool of its would take a pod; the scheduler uses
   * it too, so only Karpenter's count.
   */
  static final String KARPENTER_DECLINE = "FailedScheduling";

  private final Function<Instant, List<Event>> events;
  private List<Event> read;
  private Instant readNotBefore;

  private NodeProvisioning(Function<Instant, List<Event>> events) {
    this.events = events;
  }

  /**
   * An autoscaler's word on one pod: {@code since} is when it first said it (for a promise, when
   * the pod's wait for the node began), {@code last} when it last did.
   */
  record Word(String reason, String by, String message, Instant since, Instant last) {
    boolean promisesANode() {
      return PROMISES.contains(reason);
    }

    /** "cluster-autoscaler's TriggeredScaleUp at 2026-...: pod triggered scale-up: ...". */
    String inWords() {
      return "%s's %s at %s: %s"
          .formatted(
              by, reason, promisesANode() ? since : last, PodFailureDescriber.lastLine(message));
    }

    private Word waitingSince(Instant began) {
      return new Word(reason, by, message, began, last);
    }
  }

  /** Knows of no autoscaler's word. */
  static NodeProvisioning unknown() {
    return of(List::of);
  }

  /** From the Events (of any reason) that {@code events} reads when first asked. */
  static NodeProvisioning of(Supplier<List<Event>> events) {
    return new NodeProvisioning(notBefore -> events.get());
  }

  /**
   * From the Events (of any reason) that {@code events} reads, read no earlier than the instant it
   * is given: a read kept from before a pod's deadline may extend its wait, never end it.
   */
  static NodeProvisioning readNoEarlierThan(Function<Instant, List<Event>> events) {
    return new NodeProvisioning(events);
  }

  /** Whether {@code event} is an autoscaler's word on a pod, worth keeping. */
  static boolean concerns(Event event) {
    return event.getInvolvedObject() != null
        && "Pod".equals(event.getInvolvedObject().getKind())
        && event.getReason() != null
        && (PROMISES.contains(event.getReason())
            || DECLINE.equals(event.getReason())
            || (KARPENTER_DECLINE.equals(event.getReason())
                && reporter(event).contains("karpenter")));
  }

  /**
   * The autoscaler's word on {@code pod} that stands: while a node is on its way, the promise and
   * when the pod's wait for it began (its first promise since the last decline, or the decline
   * itself where the autoscaler repeats an earlier promise, which its Event recorder counts into
   * that promise's Event); else the last decline. Empty when no autoscaler has spoken of the pod.
   */
  Optional<Word> on(Pod pod) {
    return on(pod, Instant.MIN);
  }

  /** {@link #on(Pod)}, from Events read at {@code notBefore} or later. */
  Optional<Word> on(Pod pod, Instant notBefore) {
    String uid = pod.getMetadata().getUid();
    if (uid == null) {
      return Optional.empty();
    }
    List<Word> words =
        events(notBefore).stream()
            .filter(NodeProvisioning::concerns)
            .filter(event -> uid.equals(event.getInvolvedObject().getUid()))
            .map(NodeProvisioning::word)
            .flatMap(Optional::stream)
            .toList();
    Optional<Word> lastDecline =
        words.stream().filter(word -> !word.promisesANode()).max(Comparator.comparing(Word::last));
    Optional<Word> firstStandingPromise =
        words.stream()
            .filter(Word::promisesANode)
            .filter(word -> lastDecline.isEmpty() || word.last().isAfter(lastDecline.get().last()))
            .min(Comparator.comparing(Word::since));
    if (firstStandingPromise.isPresent()
        && lastDecline.isPresent()
        && firstStandingPromise.get().since().isBefore(lastDecline.get().last())) {
      return Optional.of(firstStandingPromise.get().waitingSince(lastDecline.get().last()));
    }
    return firstStandingPromise.or(() -> lastDecline);
  }

  private List<Event> events(Instant notBefore) {
    if (read == null || readNotBefore.isBefore(notBefore)) {
      read = List.copyOf(events.apply(notBefore));
      readNotBefore = notBefore;
    }
    return read;
  }

  /**
   * An Event as a word, with when it was first and last said. A core/v1 recorder (both
   * autoscalers') writes first and last timestamps and a count; an events.k8s.io/v1 recorder an
   * event time and a series.
   */
  private static Optional<Word> word(Event event) {
    List<Instant> times =
        Stream.of(
                instant(event.getFirstTimestamp()),
                micro(event.getEventTime()),
                instant(event.getLastTimestamp()),
                event.getSeries() == null
                    ? Optional.<Instant>empty()
                    : micro(event.getSeries().getLastObservedTime()),
                instant(
                    event.getMetadata() == null
                        ? null
                        : event.getMetadata().getCreationTimestamp()))
            .flatMap(Optional::stream)
            .toList();
    if (times.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Word(
            event.getReason(),
            reporter(event),
            Objects.requireNonNullElse(event.getMessage(), ""),
            times.stream().min(Comparator.naturalOrder()).orElseThrow(),
            times.stream().max(Comparator.naturalOrder()).orElseThrow()));
  }

  /** Who said it: the reporting component (events.k8s.io), else the source's (core/v1). */
  private static String reporter(Event event) {
    if (event.getReportingComponent() != null && !event.getReportingComponent().isEmpty()) {
      return event.getReportingComponent();
    }
    if (event.getSource() != null && event.getSource().getComponent() != null) {
      return event.getSource().getComponent();
    }
    return "an autoscaler";
  }

  private static Optional<Instant> micro(MicroTime time) {
    return time == null ? Optional.empty() : instant(time.getTime());
  }

  private static Optional<Instant> instant(String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(text));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
