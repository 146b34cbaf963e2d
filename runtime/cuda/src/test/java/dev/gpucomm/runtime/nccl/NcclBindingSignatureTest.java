package dev.gpucomm.runtime.nccl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gpucomm.api.v1alpha1.DType;
import dev.gpucomm.runtime.testing.CPrototypes;
import java.lang.foreign.FunctionDescriptor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The FFM binding declares every NCCL function exactly as nccl.h (NCCL 2.28) documents it. */
class NcclBindingSignatureTest {
  /** Copied from nccl.h. */
  private static final List<String> HEADER =
      List.of(
          "ncclResult_t ncclGetVersion(int *version);",
          "ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId);",
          "ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank);",
          "ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId commId,"
              + " int rank, ncclConfig_t* config);",
          "ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,"
              + " ncclConfig_t* config);",
          "ncclResult_t ncclCommDestroy(ncclComm_t comm);",
          "ncclResult_t ncclCommAbort(ncclComm_t comm);",
          "const char* ncclGetErrorString(ncclResult_t result);",
          "const char* ncclGetLastError(ncclComm_t comm);",
          "ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,"
              + " ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);",
          "ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,"
              + " ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream);",
          "ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,"
              + " ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);",
          "ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,"
              + " ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream);",
          "ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype,"
              + " int peer, ncclComm_t comm, cudaStream_t stream);",
          "ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,"
              + " ncclComm_t comm, cudaStream_t stream);",
          "ncclResult_t ncclGroupStart();",
          "ncclResult_t ncclGroupEnd();");

  private static final CPrototypes TYPES =
      new CPrototypes()
          .enumType("ncclResult_t")
          .enumType("ncclDataType_t")
          .enumType("ncclRedOp_t")
          .handleType("ncclComm_t")
          .handleType("cudaStream_t")
          .structType("ncclUniqueId", 128);

  @Test
  void everyBoundFunctionMatchesItsHeaderPrototype() {
    Map<String, String> documented = new LinkedHashMap<>();
    for (String prototype : HEADER) {
      Map.Entry<String, FunctionDescriptor> parsed = TYPES.parse(prototype);
      documented.put(parsed.getKey(), CPrototypes.shape(parsed.getValue()));
    }
    Map<String, String> bound = new LinkedHashMap<>();
    NcclApi.FUNCTIONS.forEach((name, descriptor) -> bound.put(name, CPrototypes.shape(descriptor)));

    assertThat(bound).containsExactlyInAnyOrderEntriesOf(documented);
  }

  @Test
  void dataTypeCodesFollowTheHeaderEnum() {
    // ncclInt8 = 0, ..., ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9.
    assertThat(NcclDataType.INT8).isZero();
    assertThat(NcclDataType.of(DType.FP16)).isEqualTo(6);
    assertThat(NcclDataType.of(DType.FP32)).isEqualTo(7);
    assertThat(NcclDataType.of(DType.BF16)).isEqualTo(9);
    assertThat(NcclDataType.SUM).isZero();
  }

  @Test
  void versionCodesReadAsReleaseNumbers() {
    assertThat(NcclApi.versionText(22803)).isEqualTo("2.28.3");
    assertThat(NcclApi.versionText(2708)).isEqualTo("2.7.8");
  }
}
