// What one hand-off between two GPUs' streams costs when it goes through a word in memory, as the
// runtime's host path hands each chunk from the sender's copy stream to the receiver's
// (cuStreamWriteValue32 on one side, cuStreamWaitValue32 on the other). Two streams, A on GPU 0
// and B on GPU 1, play ping-pong `--calls` times, everything enqueued before either starts:
//
//   A: [copy chunk i GPU 0 -> staging] write(B's word, i); wait(A's word >= i)
//   B: wait(B's word >= i); [copy chunk i staging -> GPU 1] write(A's word, i)
//
// with the words in each GPU's own memory (the writer reaches the other's through a peer mapping,
// or a CUDA IPC mapping between processes) or both in one page of shared pinned host memory; the
// two streams in one process or in two (as the runtime's ranks are); and without copies, or with
// a `--chunk-kib` copy through pinned host memory (a /dev/shm file both map) on each side. The
// figure is A's CUDA-event time per round trip (two hand-offs), the median of `--samples`; with
// copies in one process also each side's copies back to back without hand-offs (both sides at
// once), and from both what each hand-off adds: (round trip - 2 x copies) / 2.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o stream-handoff bench/probes/stream-handoff.cu
//   ./stream-handoff [--calls 200] [--samples 30] [--chunk-kib 2048]
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "stream-memops.h"


// One side of the ping-pong: its stream, the word it waits on, the word it writes, and (with
// copies) its device buffer and the shared staging it copies to or from.
struct Side {
  cudaStream_t stream;
  CUdeviceptr waitOn;
  CUdeviceptr writeTo;
  char* device;
  char* staging;
};

static void enqueue_a(const Side& a, uint32_t base, int calls, long long chunk) {
  for (int i = 1; i <= calls; ++i) {
    if (chunk > 0) {
      CHECK(cudaMemcpyAsync(a.staging, a.device, chunk, cudaMemcpyDeviceToHost, a.stream));
    }
    CHECK_CU(writeValue32(a.stream, a.writeTo, base + i, 0));
    CHECK_CU(waitValue32(a.stream, a.waitOn, base + i, CU_STREAM_WAIT_VALUE_GEQ));
  }
}

static void enqueue_b(const Side& b, uint32_t base, int calls, long long chunk) {
  for (int i = 1; i <= calls; ++i) {
    CHECK_CU(waitValue32(b.stream, b.waitOn, base + i, CU_STREAM_WAIT_VALUE_GEQ));
    if (chunk > 0) {
      CHECK(cudaMemcpyAsync(b.device, b.staging, chunk, cudaMemcpyHostToDevice, b.stream));
    }
    CHECK_CU(writeValue32(b.stream, b.writeTo, base + i, 0));
  }
}

// The same copies back to back on each side, no words: what the copies alone take per round.
static void enqueue_copies_only(const Side& s, bool a, int calls, long long chunk) {
  for (int i = 0; i < calls; ++i) {
    CHECK(cudaMemcpyAsync(a ? s.staging : s.device, a ? s.device : s.staging, chunk,
                          a ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, s.stream));
  }
}

// A page of pinned host memory shared by the processes (and both GPUs): the host words at its
// start, the staging after them.
struct Shared {
  char* host;
  long long bytes;
};

static Shared map_shared(const char* name, long long bytes, bool create) {
  int fd = shm_open(name, create ? O_CREAT | O_RDWR : O_RDWR, 0600);
  if (fd < 0) {
    perror("shm_open");
    exit(1);
  }
  if (create && ftruncate(fd, bytes) != 0) {
    perror("ftruncate");
    exit(1);
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return Shared{static_cast<char*>(p), bytes};
}

static CUdeviceptr device_pointer(void* host) {
  void* d;
  CHECK(cudaHostGetDevicePointer(&d, host, 0));
  return reinterpret_cast<CUdeviceptr>(d);
}

constexpr long long WORDS_BYTES = 4096;  // A's word at 0, B's at 128

static void register_shared(const Shared& shared) {
  CHECK(cudaHostRegister(shared.host, shared.bytes,
                         cudaHostRegisterPortable | cudaHostRegisterMapped));
}

static CUdeviceptr word_pointer(uint32_t* word, bool inHostMemory) {
  return inHostMemory ? device_pointer(word) : reinterpret_cast<CUdeviceptr>(word);
}

// Median microseconds per round trip on A (and, with copies, per round of copies alone), for both
// streams in this one process.
static void one_process(int calls, int samples, long long chunk, bool hostWords) {
  Shared shared = map_shared("/gpucomm-handoff-1p", WORDS_BYTES + chunk + 4096, true);
  memset(shared.host, 0, shared.bytes);
  Side sides[2];
  for (int g = 0; g < 2; ++g) {
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CHECK(cudaStreamCreateWithFlags(&sides[g].stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&sides[g].device, chunk > 0 ? chunk : 16));
    CHECK(cudaMemset(sides[g].device, g + 1, chunk > 0 ? chunk : 16));
  }
  register_shared(shared);
  uint32_t* words[2];
  for (int g = 0; g < 2; ++g) {
    CHECK(cudaSetDevice(g));
    if (hostWords) {
      words[g] = reinterpret_cast<uint32_t*>(shared.host + 128 * g);
    } else {
      CHECK(cudaMalloc(&words[g], 128));
      CHECK(cudaMemset(words[g], 0, 128));
    }
  }
  for (int g = 0; g < 2; ++g) {
    sides[g].waitOn = word_pointer(words[g], hostWords);
    sides[g].writeTo = word_pointer(words[1 - g], hostWords);
    sides[g].staging = shared.host + WORDS_BYTES;
  }
  uint32_t base = 0;
  const std::vector<cudaStream_t> streams{sides[0].stream, sides[1].stream};
  const double pingPong = median_slowest_ms_together(2, streams, samples, [&]() {
    CHECK(cudaSetDevice(1));
    enqueue_b(sides[1], base, calls, chunk);
    CHECK(cudaSetDevice(0));
    enqueue_a(sides[0], base, calls, chunk);
    base += calls;
  });
  printf("one process   words in %-11s chunk %5lld KiB  round trip %7.2f us",
         hostWords ? "host memory" : "GPU memory", chunk >> 10, pingPong * 1e3 / calls);
  if (chunk > 0) {
    const double copies = median_slowest_ms_together(2, streams, samples, [&]() {
      for (int g = 0; g < 2; ++g) {
        CHECK(cudaSetDevice(g));
        enqueue_copies_only(sides[g], g == 0, calls, chunk);
      }
    });
    // Each side's copies run at once on the two GPUs here, so each takes about `copies`; a round
    // trip runs A's copy and B's copy one after the other, plus two hand-offs.
    printf("  copies alone %7.2f us  each hand-off %6.2f us", copies * 1e3 / calls,
           (pingPong - 2 * copies) * 1e3 / calls / 2);
  }
  printf("\n");
  fflush(stdout);
  for (int g = 0; g < 2; ++g) {
    CHECK(cudaSetDevice(g));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaDeviceReset());
  }
  munmap(shared.host, shared.bytes);
  shm_unlink("/gpucomm-handoff-1p");
}

static void send(int fd, const void* p, size_t n) {
  if (write(fd, p, n) != static_cast<ssize_t>(n)) {
    perror("write");
    exit(1);
  }
}

static void receive(int fd, void* p, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, static_cast<char*>(p) + got, n - got);
    if (r <= 0) {
      perror("read");
      exit(1);
    }
    got += r;
  }
}

// B in its own process: maps A's staging, exchanges words, then for every sample enqueues its
// side and tells A, and waits for A's "next".
static void process_b(const Shared& shared, int toA, int fromA, int calls, int samples,
                      long long chunk, bool hostWords) {
  CHECK(cudaSetDevice(1));
  load_stream_memory_operations();
  register_shared(shared);
  Side b{};
  CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&b.device, chunk > 0 ? chunk : 16));
  b.staging = shared.host + WORDS_BYTES;
  uint32_t* own;
  if (hostWords) {
    b.waitOn = device_pointer(shared.host + 128);
    b.writeTo = device_pointer(shared.host);
  } else {
    CHECK(cudaMalloc(&own, 128));
    CHECK(cudaMemset(own, 0, 128));
    CHECK(cudaDeviceSynchronize());
    cudaIpcMemHandle_t mine, theirs;
    CHECK(cudaIpcGetMemHandle(&mine, own));
    send(toA, &mine, sizeof mine);
    receive(fromA, &theirs, sizeof theirs);
    void* peer;
    CHECK(cudaIpcOpenMemHandle(&peer, theirs, cudaIpcMemLazyEnablePeerAccess));
    b.waitOn = reinterpret_cast<CUdeviceptr>(own);
    b.writeTo = reinterpret_cast<CUdeviceptr>(peer);
  }
  uint32_t base = 0;
  for (int sample = -3; sample < samples; ++sample) {
    enqueue_b(b, base, calls, chunk);
    base += calls;
    char ready = 'r', next;
    send(toA, &ready, 1);
    receive(fromA, &next, 1);
    CHECK(cudaStreamSynchronize(b.stream));
  }
  char done = 'd';
  send(toA, &done, 1);
}

// A in its own process: exchanges words with B, then times each sample: its stream held until B
// has enqueued its side, then released.
static void process_a(const Shared& shared, int toB, int fromB, int calls, int samples,
                      long long chunk, bool hostWords) {
  CHECK(cudaSetDevice(0));
  load_stream_memory_operations();
  register_shared(shared);
  Side a{};
  CHECK(cudaStreamCreateWithFlags(&a.stream, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&a.device, chunk > 0 ? chunk : 16));
  CHECK(cudaMemset(a.device, 1, chunk > 0 ? chunk : 16));
  a.staging = shared.host + WORDS_BYTES;
  if (hostWords) {
    a.waitOn = device_pointer(shared.host);
    a.writeTo = device_pointer(shared.host + 128);
  } else {
    uint32_t* own;
    CHECK(cudaMalloc(&own, 128));
    CHECK(cudaMemset(own, 0, 128));
    CHECK(cudaDeviceSynchronize());
    cudaIpcMemHandle_t mine, theirs;
    CHECK(cudaIpcGetMemHandle(&mine, own));
    receive(fromB, &theirs, sizeof theirs);
    send(toB, &mine, sizeof mine);
    void* peer;
    CHECK(cudaIpcOpenMemHandle(&peer, theirs, cudaIpcMemLazyEnablePeerAccess));
    a.waitOn = reinterpret_cast<CUdeviceptr>(own);
    a.writeTo = reinterpret_cast<CUdeviceptr>(peer);
  }
  ReleaseFlag flag;
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  uint32_t base = 0;
  for (int sample = -3; sample < samples; ++sample) {
    flag.rearm();
    flag.hold(a.stream);
    CHECK(cudaEventRecord(start, a.stream));
    enqueue_a(a, base, calls, chunk);
    base += calls;
    CHECK(cudaEventRecord(stop, a.stream));
    char ready;
    receive(fromB, &ready, 1);
    flag.release();
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (sample >= 0) times.push_back(ms);
    char next = 'n';
    send(toB, &next, 1);
  }
  char done;
  receive(fromB, &done, 1);
  std::sort(times.begin(), times.end());
  printf("two processes words in %-11s chunk %5lld KiB  round trip %7.2f us\n",
         hostWords ? "host memory" : "GPU memory", chunk >> 10,
         times[times.size() / 2] * 1e3 / calls);
  fflush(stdout);
}

// A and B each in a process of its own (this process never initializes CUDA before it forks).
static void two_processes(int calls, int samples, long long chunk, bool hostWords) {
  int aToB[2], bToA[2];
  if (pipe(aToB) != 0 || pipe(bToA) != 0) {
    perror("pipe");
    exit(1);
  }
  Shared shared = map_shared("/gpucomm-handoff-2p", WORDS_BYTES + chunk + 4096, true);
  memset(shared.host, 0, shared.bytes);
  pid_t b = fork();
  if (b == 0) {
    close(aToB[1]);
    close(bToA[0]);
    process_b(shared, bToA[1], aToB[0], calls, samples, chunk, hostWords);
    _exit(0);
  }
  pid_t a = fork();
  if (a == 0) {
    close(aToB[0]);
    close(bToA[1]);
    process_a(shared, aToB[1], bToA[0], calls, samples, chunk, hostWords);
    _exit(0);
  }
  for (int fd : {aToB[0], aToB[1], bToA[0], bToA[1]}) close(fd);
  int statusA = 0, statusB = 0;
  waitpid(a, &statusA, 0);
  waitpid(b, &statusB, 0);
  munmap(shared.host, shared.bytes);
  shm_unlink("/gpucomm-handoff-2p");
  if (statusA != 0 || statusB != 0) {
    fprintf(stderr, "stream-handoff: a process failed\n");
    exit(1);
  }
}

int main(int argc, char** argv) {
  int calls = 200, samples = 30;
  long long chunkKib = 2048;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--calls")) calls = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--samples")) samples = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--chunk-kib")) chunkKib = atoll(argv[i + 1]);
    else {
      fprintf(stderr, "stream-handoff: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  // Two processes first: this process must not initialize CUDA before it forks.
  for (long long chunk : {0LL, chunkKib << 10}) {
    for (bool hostWords : {false, true}) two_processes(calls, samples, chunk, hostWords);
  }
  load_stream_memory_operations();
  for (long long chunk : {0LL, chunkKib << 10}) {
    for (bool hostWords : {false, true}) one_process(calls, samples, chunk, hostWords);
  }
  return 0;
}
