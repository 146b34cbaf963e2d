/* Median time of MPI_Allreduce (sum, fp32) per size: the Open MPI anchor of the CPU backend.
 * Usage: mpirun -np 2 ./mpi_allreduce WARMUP ITERATIONS BYTES...  */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: mpi_allreduce WARMUP ITERATIONS BYTES...\n");
    MPI_Finalize();
    return 2;
  }
  int warmup = atoi(argv[1]);
  int iterations = atoi(argv[2]);
  double *times = malloc(sizeof(double) * iterations);
  for (int a = 3; a < argc; a++) {
    long bytes = atol(argv[a]);
    int count = (int)(bytes / sizeof(float));
    float *input = malloc(bytes), *output = malloc(bytes);
    for (int i = 0; i < count; i++) input[i] = (float)(rank + i % 7);
    for (int i = 0; i < warmup; i++)
      MPI_Allreduce(input, output, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < iterations; i++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double started = MPI_Wtime();
      MPI_Allreduce(input, output, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double local = MPI_Wtime() - started, slowest;
      /* the slowest rank's time per call, as nccl-tests and gpucomm report */
      MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      times[i] = slowest;
    }
    qsort(times, iterations, sizeof(double), compare);
    if (rank == 0) printf("mpi %ld bytes median %.1f us\n", bytes, times[iterations / 2] * 1e6);
    free(input);
    free(output);
  }
  free(times);
  MPI_Finalize();
  return 0;
}
