package dev.gpucomm.runtime.device.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gpucomm.runtime.testing.CPrototypes;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The FFM bindings of the CUDA driver and cuBLAS match cuda.h and cublas_api.h (CUDA 13). */
class DriverBindingSignatureTest {
  /** From cuda.h, with the exported (versioned) symbol names the macros resolve to. */
  private static final List<String> CUDA_H =
      List.of(
          "CUresult cuInit(unsigned int Flags);",
          "CUresult cuDriverGetVersion(int *driverVersion);",
          "CUresult cuDeviceGetCount(int *count);",
          "CUresult cuGetErrorName(CUresult error, const char **pStr);",
          "CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,"
              + " unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,"
              + " unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,"
              + " void **kernelParams, void **extra);",
          "CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,"
              + " void **kernelParams, void **extra);",
          "CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,"
              + " unsigned int flags);",
          "CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value,"
              + " unsigned int flags);",
          "CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,"
              + " CUstream hStream);",
          "CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,"
              + " CUstream hStream);",
          "CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,"
              + " CUstream hStream);",
          "CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);",
          "CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);",
          "CUresult cuEventRecord(CUevent hEvent, CUstream hStream);",
          "CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream);",
          "CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr);",
          "CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,"
              + " unsigned int Flags);",
          "CUresult cuIpcCloseMemHandle(CUdeviceptr dptr);",
          "CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);",
          "CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags);",
          "CUresult cuMemHostUnregister(void *p);");

  /** From cublas_api.h. */
  private static final List<String> CUBLAS_API_H =
      List.of(
          "cublasStatus_t cublasCreate_v2(cublasHandle_t* handle);",
          "cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);",
          "cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId);",
          "cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace,"
              + " size_t workspaceSizeInBytes);",
          "cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget);",
          "cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,"
              + " cublasOperation_t transb, int m, int n, int k, const void* alpha, const void* A,"
              + " cudaDataType Atype, int lda, const void* B, cudaDataType Btype, int ldb,"
              + " const void* beta, void* C, cudaDataType Ctype, int ldc,"
              + " cublasComputeType_t computeType, cublasGemmAlgo_t algo);",
          "const char* cublasGetStatusName(cublasStatus_t status);");

  @Test
  void driverFunctionsMatchCudaH() {
    CPrototypes types =
        new CPrototypes()
            .enumType("CUresult")
            .enumType("cuuint32_t")
            .handleType("CUfunction")
            .handleType("CUstream")
            .handleType("CUevent")
            .handleType("CUgraphExec")
            .longType("CUdeviceptr")
            .structType("CUipcMemHandle", 64);

    assertThat(shapes(CudaDriverApi.FUNCTIONS))
        .containsExactlyInAnyOrderEntriesOf(documented(types, CUDA_H));
  }

  @Test
  void driverFunctionsMatchTheInstalledCudaHWhereThereIsOne() throws IOException {
    Path header = Path.of("/usr/local/cuda/include/cuda.h");
    assumeTrue(Files.exists(header), "no CUDA toolkit headers on this host (assumption)");
    String text = Files.readString(header);
    Map<String, String> installed = new LinkedHashMap<>();
    Matcher declaration =
        Pattern.compile("CUresult CUDAAPI (\\w+)\\(([^)]*)\\);", Pattern.DOTALL).matcher(text);
    while (declaration.find()) {
      installed.putIfAbsent(
          declaration.group(1),
          "CUresult "
              + declaration.group(1)
              + "("
              + declaration.group(2).replaceAll("\\s+", " ")
              + ");");
    }
    CPrototypes types =
        new CPrototypes()
            .enumType("CUresult")
            .enumType("cuuint32_t")
            .handleType("CUfunction")
            .handleType("CUstream")
            .handleType("CUevent")
            .handleType("CUgraphExec")
            .longType("CUdeviceptr")
            .structType("CUipcMemHandle", 64);

    // The header declares the unversioned names; macros map them to the _v2 symbols we bind.
    for (Map.Entry<String, FunctionDescriptor> bound : CudaDriverApi.FUNCTIONS.entrySet()) {
      String declared = bound.getKey().replaceFirst("_v2$", "");
      assertThat(installed).as("cuda.h declares %s", declared).containsKey(declared);
      assertThat(CPrototypes.shape(types.parse(installed.get(declared)).getValue()))
          .as(bound.getKey())
          .isEqualTo(CPrototypes.shape(bound.getValue()));
    }
  }

  @Test
  void cublasFunctionsMatchCublasApiH() {
    CPrototypes types =
        new CPrototypes()
            .enumType("cublasStatus_t")
            .enumType("cublasOperation_t")
            .enumType("cudaDataType")
            .enumType("cublasComputeType_t")
            .enumType("cublasGemmAlgo_t")
            .handleType("cublasHandle_t")
            .handleType("cudaStream_t");

    assertThat(shapes(CublasApi.FUNCTIONS))
        .containsExactlyInAnyOrderEntriesOf(documented(types, CUBLAS_API_H));
  }

  @Test
  void onlyTheHotPathSkipsTheThreadStateTransition() {
    assertThat(CudaDriverApi.CRITICAL)
        .containsExactlyInAnyOrder(
            "cuLaunchKernel",
            "cuLaunchKernelEx",
            "cuMemcpyAsync",
            "cuEventRecord",
            "cuGraphLaunch");
  }

  private static Map<String, String> documented(CPrototypes types, List<String> prototypes) {
    Map<String, String> shapes = new LinkedHashMap<>();
    for (String prototype : prototypes) {
      Map.Entry<String, FunctionDescriptor> parsed = types.parse(prototype);
      shapes.put(parsed.getKey(), CPrototypes.shape(parsed.getValue()));
    }
    return shapes;
  }

  private static Map<String, String> shapes(Map<String, FunctionDescriptor> functions) {
    Map<String, String> shapes = new LinkedHashMap<>();
    functions.forEach((name, descriptor) -> shapes.put(name, CPrototypes.shape(descriptor)));
    return shapes;
  }
}
