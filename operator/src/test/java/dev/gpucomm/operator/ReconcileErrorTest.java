package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the operator asks of JOSDK when the API server refuses what a reconciliation creates. */
class ReconcileErrorTest {
  private static final KubernetesClientException QUOTA =
      new KubernetesClientException(
          "pods \"sweep-1\" is forbidden: exceeded quota: gpus, requested: nvidia.com/gpu=4",
          403,
          null);

  private final CommJobReconciler reconciler =
      new CommJobReconciler(null, null, null, config(Duration.ofMinutes(5)), null, null);

  @Test
  void whileRetriesRemainJosdkRetriesAndTheJobSaysWhy() {
    ErrorStatusUpdateControl<CommJob> control =
        reconciler.updateErrorStatus(job(), context(attempt(2, false)), QUOTA);

    assertThat(control.isNoRetry()).isFalse();
    assertThat(control.getScheduleDelay()).isEmpty();
    assertThat(control.getResource().orElseThrow().getStatus().getConditions().getFirst())
        .satisfies(
            ready -> {
              assertThat(ready.getType()).isEqualTo("Ready");
              assertThat(ready.getReason()).isEqualTo("ReconcileError");
              assertThat(ready.getMessage()).contains("exceeded quota");
            });
  }

  @Test
  void aWorkflowsAggregateOfFailuresIsSaidInTheApiServersWords() {
    KubernetesClientException taken =
        new KubernetesClientException(
            new StatusBuilder()
                .withCode(409)
                .withReason("AlreadyExists")
                .withMessage("configmaps \"sweep-spec\" already exists")
                .build());
    Exception aggregate =
        new AggregatedOperatorException(
            "Exception(s) during workflow execution.", Map.of("spec-configmap", taken));

    assertThat(CommJobReconciler.rootMessage(aggregate))
        .isEqualTo("configmaps \"sweep-spec\" already exists");
  }

  @Test
  void afterTheLastRetryTheJobIsLookedAtAgainWithinAMinuteNotHoursLater() {
    ErrorStatusUpdateControl<CommJob> control =
        reconciler.updateErrorStatus(job(), context(attempt(5, true)), QUOTA);

    assertThat(control.isNoRetry()).isTrue();
    assertThat(control.getScheduleDelay()).hasValue(CommJobReconciler.ERROR_RECHECK.toMillis());
  }

  @Test
  void aBaselineRecheckOfZeroOrLessIsASecondNotABusyLoop() {
    assertThat(CommJobReconciler.baselineRecheckOf(Duration.ZERO)).isEqualTo(Duration.ofSeconds(1));
    assertThat(CommJobReconciler.baselineRecheckOf(Duration.ofMillis(-5)))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(CommJobReconciler.baselineRecheckOf(Duration.ofSeconds(30)))
        .isEqualTo(Duration.ofSeconds(30));
  }

  private static CommJob job() {
    CommJob job = new CommJob();
    job.setMetadata(new ObjectMetaBuilder().withName("sweep").withGeneration(1L).build());
    return job;
  }

  private static RetryInfo attempt(int count, boolean last) {
    return new RetryInfo() {
      @Override
      public int getAttemptCount() {
        return count;
      }

      @Override
      public boolean isLastAttempt() {
        return last;
      }
    };
  }

  /** Only the retry state is read; anything else would be a test bug. */
  @SuppressWarnings("unchecked")
  private static Context<CommJob> context(RetryInfo retry) {
    return (Context<CommJob>)
        Proxy.newProxyInstance(
            ReconcileErrorTest.class.getClassLoader(),
            new Class<?>[] {Context.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getRetryInfo")) {
                return Optional.of(retry);
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  private static OperatorConfig config(Duration baselineRecheck) {
    return (OperatorConfig)
        Proxy.newProxyInstance(
            ReconcileErrorTest.class.getClassLoader(),
            new Class<?>[] {OperatorConfig.class},
            (proxy, method, args) -> {
              return switch (method.getName()) {
                case "baselineRecheckInterval" -> baselineRecheck;
                case "removeLostPods" -> false;
                default -> throw new UnsupportedOperationException(method.getName());
              };
            });
  }
}
