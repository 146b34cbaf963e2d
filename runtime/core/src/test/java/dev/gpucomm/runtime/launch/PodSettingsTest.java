package dev.gpucomm.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.runtime.launch.PodLaunch.PodSettings;
import dev.gpucomm.runtime.rendezvous.RunId;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which run a pod's store serves and its ranks join. */
class PodSettingsTest {
  private static Map<String, String> podOfJob(String job) {
    Map<String, String> env = new HashMap<>();
    env.put(EnvVars.JOB, job);
    env.put(EnvVars.POD_INDEX, "0");
    env.put(EnvVars.RANKS_PER_POD, "2");
    env.put(EnvVars.WORLD_SIZE, "4");
    env.put(EnvVars.RENDEZVOUS, "allreduce-0.allreduce.ml.svc:29500");
    return env;
  }

  @Test
  void aPodOfTheOperatorJoinsTheRunItWasMadeFor() {
    Map<String, String> env = podOfJob("allreduce");
    env.put(EnvVars.RUN_ID, "5d1e0c8a-7b7e-4d0c-9a59-2f3f7e1d2c11/2");

    assertThat(PodSettings.fromEnv(env).run())
        .isEqualTo(new RunId("5d1e0c8a-7b7e-4d0c-9a59-2f3f7e1d2c11/2"));
  }

  @Test
  void podsStartedByHandWithoutARunKeepOtherJobsOutByTheJobsName() {
    assertThat(PodSettings.fromEnv(podOfJob("allreduce")).run()).isEqualTo(new RunId("allreduce"));
  }

  @Test
  void aJobNameThatIsNoRunIdNamesNoRun() {
    assertThat(PodSettings.fromEnv(podOfJob("sweep of 4 GPUs")).run()).isEqualTo(RunId.NONE);
  }
}
