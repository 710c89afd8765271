/*
 * inject_away.c - short sends whose sender then waits outside MPI (docs/mpi-provider.md "Packets left
 * queued while the application is away"): rank 0 sends rank 1 two short messages (MPI libraries
 * inject them: the send completes at once) while rank 1 is still busy, so the second finds the EWS
 * still holding the first; then rank 0 waits outside MPI (polling a file, as a process waits in PMIx)
 * for rank 1 to say it got both.  Rank 1 receives them after SETTLE_MS and creates the file.
 *
 * usage: inject_away MARKER_FILE   (2 ranks)
 *   Rank 0 prints "inject_away: OK", or "inject_away: rank 1 never got the messages" after 10 s.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SETTLE_MS 200
#define GIVE_UP_MS 10000
#define WORDS 64 /* 512 bytes: well below every provider's inject size, beyond one EWS round */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc != 2 || np != 2) {
    if (me == 0) fprintf(stderr, "usage: inject_away MARKER_FILE (2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const char *marker = argv[1];
  long msg[2][WORDS];
  for (int m = 0; m < 2; m++)
    for (int i = 0; i < WORDS; i++) msg[m][i] = 1000L * m + i;
  int ok = 1;
  if (me == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    for (int m = 0; m < 2; m++) MPI_Send(msg[m], WORDS, MPI_LONG, 1, m, MPI_COMM_WORLD);
    int waited = 0;
    while (access(marker, F_OK) != 0 && waited < GIVE_UP_MS) { /* outside MPI, like a PMIx wait */
      usleep(1000);
      waited++;
    }
    ok = access(marker, F_OK) == 0;
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    usleep(SETTLE_MS * 1000); /* busy elsewhere: the first message stays in the EWS */
    long in[WORDS];
    for (int m = 0; m < 2; m++) {
      MPI_Recv(in, WORDS, MPI_LONG, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (memcmp(in, msg[m], sizeof in) != 0) ok = 0;
    }
    FILE *f = fopen(marker, "w");
    if (!f || fclose(f) != 0) ok = 0;
  }
  int all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (me == 0) printf(all ? "inject_away: OK\n" : "inject_away: rank 1 never got the messages\n");
  MPI_Finalize();
  return all ? 0 : 1;
}
