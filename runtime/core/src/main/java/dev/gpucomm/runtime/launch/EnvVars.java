package dev.gpucomm.runtime.launch;

/**
 * Environment variables of the operator–runtime contract (see the design notes' table) and those
 * the launcher sets for each rank process.
 */
public final class EnvVars {
  // Set by the operator on every pod.
  /** The CommJob's name. */
  public static final String JOB = "GPUCOMM_JOB";

  /** A user's switch for host-IR programs: {@code off} leaves the ranks' timed runs unaligned. */
  public static final String PROGRAM_ALIGN = "GPUCOMM_PROGRAM_ALIGN";

  /** The CommJob's namespace; its presence means the ranks run in a cluster. */
  public static final String NAMESPACE = "GPUCOMM_NAMESPACE";

  /** Index of this pod among the job's pods (0 hosts the rendezvous store). */
  public static final String POD_INDEX = "GPUCOMM_POD_INDEX";

  public static final String RANKS_PER_POD = "GPUCOMM_RANKS_PER_POD";
  public static final String WORLD_SIZE = "GPUCOMM_WORLD_SIZE";

  /** The node the pod runs on (downward API spec.nodeName); unset outside a cluster. */
  public static final String NODE_NAME = "GPUCOMM_NODE_NAME";

  /** The pod's name (downward API metadata.name); unset outside a cluster. */
  public static final String POD_NAME = "GPUCOMM_POD_NAME";

  /** host:port of the rendezvous store. */
  public static final String RENDEZVOUS = "GPUCOMM_RENDEZVOUS";

  /**
   * Which run the ranks belong to (the job's uid and restart attempt, set by the operator); the
   * store refuses ranks of another. Pods started by hand default to the job's name, a local run's
   * launcher makes one of its own.
   */
  public static final String RUN_ID = "GPUCOMM_RUN_ID";

  /**
   * Which run of its job the pod belongs to: 0, then one more for each restart the operator made;
   * rank 0 stamps it on the report it publishes. Unset outside a cluster.
   */
  public static final String RESTART_ATTEMPT = "GPUCOMM_RESTART_ATTEMPT";

  // Set by the launcher for each rank, like torchrun.
  public static final String RANK = "RANK";
  public static final String LOCAL_RANK = "LOCAL_RANK";
  public static final String RANK_WORLD_SIZE = "WORLD_SIZE";

  // Runtime settings (launcher to rank, or user overrides).
  /** The job file a rank reads; /etc/gpucomm/job.json in a pod. */
  public static final String JOB_FILE = "GPUCOMM_JOB_FILE";

  /** How errors name the job file (a local run's ranks read a copy of the user's file). */
  public static final String JOB_SOURCE = "GPUCOMM_JOB_SOURCE";

  /** Device backend the ranks use (cpu or cuda); the job's spec.device when unset. */
  public static final String DEVICE = "GPUCOMM_DEVICE";

  /** Which device of the host a rank opens; LOCAL_RANK when unset. */
  public static final String DEVICE_ORDINAL = "GPUCOMM_DEVICE_ORDINAL";

  /** Directory rank 0 writes the report files into (local runs); unset in a pod. */
  public static final String REPORT_DIR = "GPUCOMM_REPORT_DIR";

  /** File a supervised rank writes its one-line error into when it fails. */
  public static final String ERROR_FILE = "GPUCOMM_ERROR_FILE";

  /** "1" when a launcher supervises the rank: it exits when the launcher goes away. */
  public static final String SUPERVISED = "GPUCOMM_SUPERVISED";

  /** What rank 0 shows during a sweep: live (one updating line), lines, or off. */
  public static final String PROGRESS = "GPUCOMM_PROGRESS";

  /** "selftest" makes the ranks check every algorithm instead of running the job's workload. */
  public static final String MODE = "GPUCOMM_MODE";

  /**
   * How CPU-backend ranks are placed on the host's CPUs: {@code core} (the default) gives each rank
   * an even share of the allowed CPUs (one each where ranks and CPUs are equal) when the job's
   * ranks do not outnumber them, {@code none} leaves them to the scheduler.
   */
  public static final String CPU_BIND = "GPUCOMM_CPU_BIND";

  /** "1" makes host-IR programs print their IR before and after each pass. */
  public static final String DUMP_IR = "GPUCOMM_DUMP_IR";

  /** "1" prints stack traces with errors. */
  public static final String DEBUG = "GPUCOMM_DEBUG";

  /** Where `gpucomm launch` writes the failing rank's error; /dev/termination-log by default. */
  public static final String TERMINATION_LOG = "GPUCOMM_TERMINATION_LOG";

  /** Base URL of the Kubernetes API, overriding the in-cluster config (http allowed, for tests). */
  public static final String KUBE_API = "GPUCOMM_KUBE_API";

  /**
   * Fault injection for tests: the rank with this number throws right after the rendezvous, so that
   * supervision (stop the others, name the failing rank) can be tested end to end.
   */
  public static final String TEST_FAIL_RANK = "GPUCOMM_TEST_FAIL_RANK";

  /** Test hook: where that rank fails, rendezvous (default) or workload. */
  public static final String TEST_FAIL_AT = "GPUCOMM_TEST_FAIL_AT";

  private EnvVars() {}
}
