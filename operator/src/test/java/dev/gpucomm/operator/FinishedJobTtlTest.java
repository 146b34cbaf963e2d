package dev.gpucomm.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.CommJob;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** spec.ttlSecondsAfterFinished deletes the job the operator judged due, and no other. */
class FinishedJobTtlTest {
  private static final String NAMESPACE = "ci";
  private static final String JOB_PATH =
      "/apis/gpucomm.dev/v1alpha1/namespaces/ci/commjobs/nightly";

  private StandaloneApiServer cluster;

  @BeforeEach
  void startApiServer() {
    cluster = StandaloneApiServer.start();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void theDeletionNamesTheVersionOfTheJobThatWasJudgedDue() throws Exception {
    CommJob judged = givenJob("nightly");
    givenPodOf(judged, "nightly-0");

    assertThat(FinishedJobTtl.expire(cluster.client, judged)).isTrue();

    RecordedRequest deletion = lastRequestTo(JOB_PATH);
    assertThat(deletion.getMethod()).isEqualTo("DELETE");
    assertThat(deletion.getUtf8Body())
        .contains(
            "\"preconditions\":{\"resourceVersion\":\"%s\"}"
                .formatted(judged.getMetadata().getResourceVersion()));
    assertThat(
            cluster
                .client
                .resources(CommJob.class)
                .inNamespace(NAMESPACE)
                .withName("nightly")
                .get())
        .isNull();
    assertThat(cluster.client.pods().inNamespace(NAMESPACE).withName("nightly-0").get())
        .as("its pods go at once, not when the garbage collector gets to them")
        .isNull();
  }

  @Test
  void aJobChangedSinceItWasJudgedStaysToBeLookedAtAgain() {
    CommJob judged = givenJob("nightly");
    givenPodOf(judged, "nightly-0");
    // what the API server answers a precondition that no longer holds: a namesake made anew,
    // or an edit of the job since it was read
    cluster
        .server
        .expect()
        .delete()
        .withPath(JOB_PATH)
        .andReturn(
            409,
            "{\"kind\":\"Status\",\"code\":409,\"reason\":\"Conflict\",\"message\":\"Operation"
                + " cannot be fulfilled on commjobs.gpucomm.dev \\\"nightly\\\": the"
                + " ResourceVersion in the precondition (1) does not match the ResourceVersion"
                + " in record (2)\"}")
        .once();

    assertThat(FinishedJobTtl.expire(cluster.client, judged)).isFalse();
    assertThat(
            cluster
                .client
                .resources(CommJob.class)
                .inNamespace(NAMESPACE)
                .withName("nightly")
                .get())
        .isNotNull();
    assertThat(cluster.client.pods().inNamespace(NAMESPACE).withName("nightly-0").get())
        .as("nothing of the job goes while it is looked at again")
        .isNotNull();
  }

  private CommJob givenJob(String name) {
    CommJob job = new CommJob();
    job.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(NAMESPACE)
            .withUid("uid-" + name)
            .build());
    return cluster.client.resource(job).create();
  }

  private void givenPodOf(CommJob job, String name) {
    cluster
        .client
        .pods()
        .inNamespace(NAMESPACE)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of(CommJob.JOB_LABEL, job.getMetadata().getName()))
                .addNewOwnerReference()
                .withApiVersion("gpucomm.dev/v1alpha1")
                .withKind("CommJob")
                .withName(job.getMetadata().getName())
                .withUid(job.getMetadata().getUid())
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .build())
        .create();
  }

  private RecordedRequest lastRequestTo(String path) throws InterruptedException {
    RecordedRequest last = null;
    for (RecordedRequest request = cluster.server.takeRequest(100, TimeUnit.MILLISECONDS);
        request != null;
        request = cluster.server.takeRequest(100, TimeUnit.MILLISECONDS)) {
      if (request.getPath().startsWith(path)) {
        last = request;
      }
    }
    return last;
  }
}
