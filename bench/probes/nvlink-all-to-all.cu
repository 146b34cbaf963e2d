// NVLink write bandwidth when every GPU of the host writes to every other at once: the traffic of
// a two-shot all-reduce's scatter (and gather) phase. Each GPU sends `--mib` / n MiB to each of
// its n - 1 peers, by SM stores (the grid's blocks split among the peers; or all blocks going
// through the peers in turn, in 1 to 64 rounds of slices, so that every GPU sends to one peer and
// receives from one at a time; or all of it to the next GPU only, or half to the next and half to
// the previous, the traffic of a ring), or by the copy engines (one stream per peer), or a share
// of every part by the copy engines and the rest by SM stores at once; or each GPU reads its parts
// from every peer (remote loads), or does both at once (the traffic of a pulling gather beside a
// scatter). The figure is each GPU's GB/s (10^9 bytes; for push + pull, out and in added), the
// median of `--samples` samples of `--calls` back-to-back transfers, the slowest GPU of each
// sample; every destination is compared with its source afterwards.
//
// An all-reduce of S bytes on n ranks moves 2 (n - 1) / n x S out of every GPU, so its bus
// bandwidth (nccl-tests' definition) cannot exceed the outbound rate measured here.
//
//   nvcc -O3 -arch=sm_90 -cudart static -o nvlink-all-to-all bench/probes/nvlink-all-to-all.cu
//   ./nvlink-all-to-all [--mib 64] [--calls 10] [--samples 30]
#include <string>

#include "probe.h"
#include "all-to-all.h"

struct Gpu {
  int device;
  cudaStream_t stream;
  cudaStream_t copies[MAX_GPUS - 1];
  cudaEvent_t fork, joins[MAX_GPUS - 1];
  char* src;  // n - 1 parts: part p goes to peer_of(device, p)
  char* dst;  // n - 1 parts: one per sender, at slot(sender, device)
  char* pulled;  // n - 1 parts read from the peers' src (pull mode)
  cudaStream_t second;  // the pulling kernel beside the pushing one (push+pull mode)
  cudaEvent_t pullFork, pullJoin;
};

enum class Mode {
  PUSH,
  PUSH_ROTATING,
  RING,
  RING2,
  COPY_ENGINES,
  MIXED,
  PULL,
  PUSH_AND_PULL,
  CE_ROUNDS,       // copy engine, one stream: part p to peer_of(g, p), one peer after another
  CE_ROUNDS_PULL,  // copy engine, one stream: read peer after peer's part (into `pulled`)
  CE_RING,         // copy engine: all n - 1 parts to GPU g + k (k = 1: the next) in one copy
  MIXED_NEXT,      // part 0 (to the next GPU) by the copy engine, the others by SM stores, at once
  SM_TWICE,        // push_to_all twice: a two-shot's scatter and gather, both by SM stores
  SM_THEN_CE,      // push_to_all, then CE_ROUNDS: the gather by the copy engine
  SM_THEN_CE_PULL,  // push_to_all, then CE_ROUNDS_PULL
};

// Peer p's part of GPU g's pull: the part peer p sends to g in push mode.
static Destinations pull_sources(std::vector<Gpu>& gpus, int g, long long part) {
  const int n = static_cast<int>(gpus.size());
  Destinations d{};
  for (int p = 0; p < n - 1; ++p) {
    const int peer = peer_of(g, p, n);
    const int index = index_of(peer, g, n);
    d.to[p] = reinterpret_cast<uint4*>(gpus[peer].src + index * part);
  }
  return d;
}

// The first `copyBytes` of every part go by the copy engines (one stream per peer), the rest by SM
// stores, at the same time.
static void enqueue_mixed(std::vector<Gpu>& gpus, int g, long long part, long long copyBytes,
                          int blocks) {
  const int n = static_cast<int>(gpus.size());
  Gpu& self = gpus[g];
  CHECK(cudaEventRecord(self.fork, self.stream));
  for (int p = 0; p < n - 1; ++p) {
    const int peer = peer_of(g, p, n);
    CHECK(cudaStreamWaitEvent(self.copies[p], self.fork, 0));
    CHECK(cudaMemcpyPeerAsync(gpus[peer].dst + slot(g, peer, part), peer, self.src + p * part,
                              self.device, copyBytes, self.copies[p]));
    CHECK(cudaEventRecord(self.joins[p], self.copies[p]));
  }
  Destinations d{};
  for (int p = 0; p < n - 1; ++p) {
    const int peer = peer_of(g, p, n);
    d.to[p] = reinterpret_cast<uint4*>(gpus[peer].dst + slot(g, peer, part) + copyBytes);
  }
  // Part p's SM share starts copyBytes into it; the parts stay `part` apart.
  push_to_all<<<blocks, 512, 0, self.stream>>>(
      reinterpret_cast<const uint4*>(self.src + copyBytes), d, n - 1, (part - copyBytes) / 16,
      part / 16);
  for (int p = 0; p < n - 1; ++p) CHECK(cudaStreamWaitEvent(self.stream, self.joins[p], 0));
}

static void enqueue(std::vector<Gpu>& gpus, int g, long long part, Mode mode, int blocks,
                    int rounds = 1) {
  const int n = static_cast<int>(gpus.size());
  Gpu& self = gpus[g];
  if (mode == Mode::CE_ROUNDS || mode == Mode::CE_ROUNDS_PULL || mode == Mode::SM_THEN_CE ||
      mode == Mode::SM_THEN_CE_PULL || mode == Mode::SM_TWICE) {
    if (mode == Mode::SM_THEN_CE || mode == Mode::SM_THEN_CE_PULL || mode == Mode::SM_TWICE) {
      Destinations d{};
      for (int p = 0; p < n - 1; ++p) {
        const int peer = peer_of(g, p, n);
        d.to[p] = reinterpret_cast<uint4*>(gpus[peer].dst + slot(g, peer, part));
      }
      push_to_all<<<blocks, 512, 0, self.stream>>>(reinterpret_cast<const uint4*>(self.src), d,
                                                   n - 1, part / 16, part / 16);
      if (mode == Mode::SM_TWICE) {
        push_to_all<<<blocks, 512, 0, self.stream>>>(reinterpret_cast<const uint4*>(self.src), d,
                                                     n - 1, part / 16, part / 16);
        return;
      }
    }
    for (int p = 0; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      if (mode == Mode::CE_ROUNDS_PULL || mode == Mode::SM_THEN_CE_PULL) {
        const int index = index_of(peer, g, n);
        CHECK(cudaMemcpyPeerAsync(self.pulled + p * part, self.device,
                                  gpus[peer].src + index * part, peer, part, self.stream));
      } else {
        CHECK(cudaMemcpyPeerAsync(gpus[peer].dst + slot(g, peer, part), peer,
                                  self.src + p * part, self.device, part, self.stream));
      }
    }
    return;
  }
  if (mode == Mode::MIXED_NEXT) {
    CHECK(cudaEventRecord(self.fork, self.stream));
    CHECK(cudaStreamWaitEvent(self.copies[0], self.fork, 0));
    const int next = peer_of(g, 0, n);
    CHECK(cudaMemcpyPeerAsync(gpus[next].dst + slot(g, next, part), next, self.src, self.device,
                              part, self.copies[0]));
    CHECK(cudaEventRecord(self.joins[0], self.copies[0]));
    Destinations d{};
    for (int p = 1; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      d.to[p - 1] = reinterpret_cast<uint4*>(gpus[peer].dst + slot(g, peer, part));
    }
    push_to_all<<<blocks, 512, 0, self.stream>>>(reinterpret_cast<const uint4*>(self.src + part),
                                                 d, n - 2, part / 16, part / 16);
    CHECK(cudaStreamWaitEvent(self.stream, self.joins[0], 0));
    return;
  }
  if (mode == Mode::CE_RING) {
    const int next = (g + rounds) % n;  // `rounds` holds k
    CHECK(cudaMemcpyPeerAsync(gpus[next].dst, next, self.src, self.device, part * (n - 1),
                              self.stream));
    return;
  }
  if (mode == Mode::PULL) {
    pull_from_all<<<blocks, 512, 0, self.stream>>>(pull_sources(gpus, g, part),
                                                   reinterpret_cast<uint4*>(self.pulled), n - 1,
                                                   part / 16, part / 16);
    return;
  }
  if (mode == Mode::RING || mode == Mode::RING2) {
    // The same bytes as the all-to-all, all to the next GPU (RING), or the first half to the next
    // and the second half to the previous GPU (RING2): the traffic of a ring's steps.
    const long long total = part * (n - 1);
    const int next = (g + 1) % n, previous = (g + n - 1) % n;
    Destinations d{};
    if (mode == Mode::RING) {
      d.to[0] = reinterpret_cast<uint4*>(gpus[next].dst);
      push_to_all<<<blocks, 512, 0, self.stream>>>(reinterpret_cast<const uint4*>(self.src), d,
                                                   1, total / 16, 0);
    } else {
      d.to[0] = reinterpret_cast<uint4*>(gpus[next].dst);
      d.to[1] = reinterpret_cast<uint4*>(gpus[previous].dst + total / 2);
      push_to_all<<<blocks, 512, 0, self.stream>>>(reinterpret_cast<const uint4*>(self.src), d,
                                                   2, total / 32, total / 32);
    }
    return;
  }
  if (mode == Mode::PUSH_AND_PULL) {
    CHECK(cudaEventRecord(self.pullFork, self.stream));
    CHECK(cudaStreamWaitEvent(self.second, self.pullFork, 0));
    pull_from_all<<<blocks / 2, 512, 0, self.second>>>(pull_sources(gpus, g, part),
                                                       reinterpret_cast<uint4*>(self.pulled),
                                                       n - 1, part / 16, part / 16);
    CHECK(cudaEventRecord(self.pullJoin, self.second));
    Destinations d{};
    for (int p = 0; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      d.to[p] = reinterpret_cast<uint4*>(gpus[peer].dst + slot(g, peer, part));
    }
    push_to_all<<<blocks / 2, 512, 0, self.stream>>>(reinterpret_cast<const uint4*>(self.src), d,
                                                     n - 1, part / 16, part / 16);
    CHECK(cudaStreamWaitEvent(self.stream, self.pullJoin, 0));
    return;
  }
  if (mode == Mode::COPY_ENGINES) {
    CHECK(cudaEventRecord(self.fork, self.stream));
    for (int p = 0; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      CHECK(cudaStreamWaitEvent(self.copies[p], self.fork, 0));
      CHECK(cudaMemcpyPeerAsync(gpus[peer].dst + slot(g, peer, part), peer, self.src + p * part,
                                self.device, part, self.copies[p]));
      CHECK(cudaEventRecord(self.joins[p], self.copies[p]));
      CHECK(cudaStreamWaitEvent(self.stream, self.joins[p], 0));
    }
  } else {
    Destinations d{};
    for (int p = 0; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      d.to[p] = reinterpret_cast<uint4*>(gpus[peer].dst + slot(g, peer, part));
    }
    if (mode == Mode::PUSH_ROTATING) {
      push_rotating<<<blocks, 512, 0, self.stream>>>(reinterpret_cast<const uint4*>(self.src), d,
                                                     n - 1, part / 16, part / 16, rounds);
    } else {
      push_to_all<<<blocks, 512, 0, self.stream>>>(reinterpret_cast<const uint4*>(self.src), d,
                                                   n - 1, part / 16, part / 16);
    }
  }
}

// Outbound GB/s of each GPU (for PULL: inbound; for PUSH_AND_PULL: out + in, each n - 1 parts).
static double measure(std::vector<Gpu>& gpus, long long part, Mode mode, int blocks, int calls,
                      int samples, long long copyBytes = 0, int rounds = 1) {
  const int n = static_cast<int>(gpus.size());
  std::vector<cudaStream_t> streams;
  for (const Gpu& gpu : gpus) streams.push_back(gpu.stream);
  const double ms = median_slowest_ms(n, streams, samples, [&](int g) {
    for (int k = 0; k < calls; ++k) {
      if (mode == Mode::MIXED) {
        enqueue_mixed(gpus, g, part, copyBytes, blocks);
      } else {
        enqueue(gpus, g, part, mode, blocks, rounds);
      }
    }
  });
  const bool twice =
      mode == Mode::PUSH_AND_PULL || mode == Mode::SM_TWICE || mode == Mode::SM_THEN_CE ||
      mode == Mode::SM_THEN_CE_PULL;
  const double moved = static_cast<double>(part) * (n - 1) * (twice ? 2 : 1);
  return moved * calls / (ms * 1e-3) / 1e9;
}

static bool destinations_match(std::vector<Gpu>& gpus, long long part, Mode mode, int k = 1) {
  const int n = static_cast<int>(gpus.size());
  if (mode == Mode::RING || mode == Mode::RING2 || mode == Mode::CE_RING) {
    const long long total = part * (n - 1), half = total / 2;
    std::vector<char> a(total), b(total);
    for (int g = 0; g < n; ++g) {
      CHECK(cudaSetDevice(g));
      CHECK(cudaMemcpy(a.data(), gpus[g].src, total, cudaMemcpyDeviceToHost));
      const int next = (g + (mode == Mode::CE_RING ? k : 1)) % n, previous = (g + n - 1) % n;
      CHECK(cudaSetDevice(next));
      CHECK(cudaMemcpy(b.data(), gpus[next].dst, total, cudaMemcpyDeviceToHost));
      if (memcmp(a.data(), b.data(), mode == Mode::RING2 ? half : total) != 0) return false;
      if (mode == Mode::RING2) {
        CHECK(cudaSetDevice(previous));
        CHECK(cudaMemcpy(b.data(), gpus[previous].dst, total, cudaMemcpyDeviceToHost));
        if (memcmp(a.data() + half, b.data() + half, total - half) != 0) return false;
      }
    }
    return true;
  }
  std::vector<char> a(part), b(part);
  for (int g = 0; g < n; ++g) {
    for (int p = 0; p < n - 1; ++p) {
      const int peer = peer_of(g, p, n);
      CHECK(cudaSetDevice(g));
      CHECK(cudaMemcpy(a.data(), gpus[g].src + p * part, part, cudaMemcpyDeviceToHost));
      if (mode != Mode::PULL && mode != Mode::CE_ROUNDS_PULL) {
        CHECK(cudaSetDevice(peer));
        CHECK(cudaMemcpy(b.data(), gpus[peer].dst + slot(g, peer, part), part,
                         cudaMemcpyDeviceToHost));
        if (memcmp(a.data(), b.data(), part) != 0) return false;
      }
      if (mode == Mode::PULL || mode == Mode::PUSH_AND_PULL || mode == Mode::CE_ROUNDS_PULL ||
          mode == Mode::SM_THEN_CE_PULL) {
        // peer pulled this part into its pulled buffer at the index of g among its peers
        const int index = index_of(peer, g, n);
        CHECK(cudaSetDevice(peer));
        CHECK(cudaMemcpy(b.data(), gpus[peer].pulled + index * part, part,
                         cudaMemcpyDeviceToHost));
        if (memcmp(a.data(), b.data(), part) != 0) return false;
      }
    }
  }
  return true;
}

int main(int argc, char** argv) {
  const ProbeOptions options = parse_probe_options("nvlink-all-to-all", argc, argv);
  const long long bytes = options.bytes;
  const int calls = options.calls, samples = options.samples;
  int n = 0;
  CHECK(cudaGetDeviceCount(&n));
  if (n < 2 || n > MAX_GPUS) {
    fprintf(stderr, "nvlink-all-to-all: needs 2 to %d GPUs, found %d\n", MAX_GPUS, n);
    return 2;
  }
  const long long part = bytes / n / 16 * 16;
  std::vector<Gpu> gpus(n);
  for (int g = 0; g < n; ++g) {
    Gpu& gpu = gpus[g];
    gpu.device = g;
    CHECK(cudaSetDevice(g));
    for (int q = 0; q < n; ++q)
      if (q != g) CHECK(cudaDeviceEnablePeerAccess(q, 0));
    CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&gpu.fork, cudaEventDisableTiming));
    for (int p = 0; p < n - 1; ++p) {
      CHECK(cudaStreamCreateWithFlags(&gpu.copies[p], cudaStreamNonBlocking));
      CHECK(cudaEventCreateWithFlags(&gpu.joins[p], cudaEventDisableTiming));
    }
    CHECK(cudaMalloc(&gpu.src, part * (n - 1)));
    CHECK(cudaMalloc(&gpu.dst, part * (n - 1)));
    CHECK(cudaMalloc(&gpu.pulled, part * (n - 1)));
    CHECK(cudaStreamCreateWithFlags(&gpu.second, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&gpu.pullFork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&gpu.pullJoin, cudaEventDisableTiming));
    const std::vector<uint32_t> random = random_words(part * (n - 1), g + 1);
    CHECK(cudaMemcpy(gpu.src, random.data(), part * (n - 1), cudaMemcpyHostToDevice));
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s x %d: every GPU sends %.2f MiB to each of %d peers at once (%lld MiB / %d), %d "
         "transfers per sample, median of %d\n",
         prop.name, n, part / 1048576.0, n - 1, bytes >> 20, n, calls, samples);
  const int sms = prop.multiProcessorCount;
  const int perPeer = sms / (n - 1);
  const long long total = part * (n - 1);
  for (int blocks : {perPeer * (n - 1), 2 * perPeer * (n - 1)}) {
    struct Row {
      Mode mode;
      const char* label;
    };
    for (Row row : {Row{Mode::PUSH, "push (stores)"}, Row{Mode::PULL, "pull (loads)"},
                    Row{Mode::PUSH_AND_PULL, "push + pull at once, half the blocks each"}}) {
      clear_receive_buffers(gpus, total);
      const double rate = measure(gpus, part, row.mode, blocks, calls, samples);
      const bool ok = destinations_match(gpus, part, row.mode);
      printf("sm  %-42s blocks=%-4d %7.1f GB/s per GPU  %s\n", row.label, blocks, rate,
             ok ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!ok) return 3;
    }
  }
  for (int blocks : {sms, 2 * sms}) {
    for (int rounds : {1, 4, 16, 64}) {
      clear_receive_buffers(gpus, total);
      const double rate =
          measure(gpus, part, Mode::PUSH_ROTATING, blocks, calls, samples, 0, rounds);
      const bool ok = destinations_match(gpus, part, Mode::PUSH_ROTATING);
      char label[64];
      snprintf(label, sizeof label, "push, one peer at a time, %d rounds", rounds);
      printf("sm  %-42s blocks=%-4d %7.1f GB/s per GPU  %s\n", label, blocks, rate,
             ok ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!ok) return 3;
    }
  }
  for (int blocks : {sms, 2 * sms}) {
    struct Row {
      Mode mode;
      const char* label;
    };
    for (Row row : {Row{Mode::RING, "push, all to the next GPU (ring)"},
                    Row{Mode::RING2, "push, half to the next, half to the previous"}}) {
      clear_receive_buffers(gpus, total);
      const double rate = measure(gpus, part, row.mode, blocks, calls, samples);
      const bool ok = destinations_match(gpus, part, row.mode);
      printf("sm  %-42s blocks=%-4d %7.1f GB/s per GPU  %s\n", row.label, blocks, rate,
             ok ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!ok) return 3;
    }
  }
  {
    struct Row {
      Mode mode;
      const char* label;
      int blocks;
    };
    for (Row row : {Row{Mode::CE_ROUNDS, "one stream, one peer after another (push)", 0},
                    Row{Mode::CE_ROUNDS_PULL, "one stream, one peer after another (pull)", 0},
                    Row{Mode::SM_TWICE, "sm push twice (scatter, gather)", perPeer * (n - 1)},
                    Row{Mode::SM_THEN_CE, "sm push, then ce push peer after peer",
                        perPeer * (n - 1)},
                    Row{Mode::SM_THEN_CE_PULL, "sm push, then ce pull peer after peer",
                        perPeer * (n - 1)}}) {
      clear_receive_buffers(gpus, total);
      const double rate = measure(gpus, part, row.mode, row.blocks, calls, samples);
      const bool ok = destinations_match(gpus, part, row.mode);
      printf("ce  %-42s blocks=%-4d %7.1f GB/s per GPU  %s\n", row.label, row.blocks, rate,
             ok ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!ok) return 3;
    }
  }
  for (int k = 1; k < n; ++k) {
    clear_receive_buffers(gpus, total);
    const double rate = measure(gpus, part, Mode::CE_RING, 0, calls, samples, 0, k);
    const bool ok = destinations_match(gpus, part, Mode::CE_RING, k);
    char label[64];
    snprintf(label, sizeof label, "all to GPU g + %d%s", k, k == 1 ? " (ring)" : "");
    printf("ce  %-42s            %7.1f GB/s per GPU  %s\n", label, rate, ok ? "checked" : "MISMATCH");
    fflush(stdout);
    if (!ok) return 3;
  }
  if (n > 2) {
    for (int blocks : {sms, 2 * sms}) {
      clear_receive_buffers(gpus, total);
      const double rate = measure(gpus, part, Mode::MIXED_NEXT, blocks, calls, samples);
      const bool ok = destinations_match(gpus, part, Mode::MIXED_NEXT);
      printf("mix %-42s blocks=%-4d %7.1f GB/s per GPU  %s\n", "ce to the next GPU, sm to the others",
             blocks, rate, ok ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!ok) return 3;
    }
  }
  clear_receive_buffers(gpus, total);
  const double rate = measure(gpus, part, Mode::COPY_ENGINES, 0, calls, samples);
  const bool ok = destinations_match(gpus, part, Mode::COPY_ENGINES);
  printf("ce  %-42s            %7.1f GB/s per GPU  %s\n", "one stream per peer", rate,
         ok ? "checked" : "MISMATCH");
  if (!ok) return 3;
  for (int blocks : {perPeer * (n - 1), 2 * perPeer * (n - 1)}) {
    for (double share : {0.1, 0.2, 0.3, 0.4, 0.5}) {
      const long long copyBytes = static_cast<long long>(part * share) / 16 * 16;
      clear_receive_buffers(gpus, total);
      const double mixed =
          measure(gpus, part, Mode::MIXED, blocks, calls, samples, copyBytes);
      const bool same = destinations_match(gpus, part, Mode::MIXED);
      char label[64];
      snprintf(label, sizeof label, "copy-engine share %.1f, SM stores the rest", share);
      printf("mix %-42s blocks=%-4d %7.1f GB/s per GPU  %s\n", label, blocks, mixed,
             same ? "checked" : "MISMATCH");
      fflush(stdout);
      if (!same) return 3;
    }
  }
  return 0;
}
