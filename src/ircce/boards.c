/* Board queries of iRCCE for systems of several boards ([SCC-2BOARD] sec.
 * IV-B): with RCCE_ue and RCCE_num_ues they tell a UE where it sits in the
 * coupled system.  Boards are those of the job's chip (rccerun --boards),
 * numbered from 0; UEs are numbered across them (docs/cluster.md). */
#include "ircce_internal.h"

static const struct chip_desc *chip(void) { return &rcce_job()->hdr->chip; }

int iRCCE_dev(void) { return chip_board_of_core(chip(), rcce_my_core()); }

int iRCCE_num_devs(void) { return chip()->boards; }

/* RCCE 2.0's names for the same (RCCE.h): my board, the boards, the board
 * of a UE (-1 for no such UE), the UEs of a board, my rank among them. */
int RCCE_dev(void) { return iRCCE_dev(); }

int RCCE_num_dev(void) { return iRCCE_num_devs(); }

int RCCE_ue_to_dev(int ue) {
  const struct hw_job *j = rcce_job();
  if (ue < 0 || ue >= (int)j->hdr->nue) return -1;
  return chip_board_of_core(chip(), hw_ue(j, ue)->core);
}

int RCCE_num_ues_dev(int dev) {
  int n = 0;
  for (int u = 0; u < (int)rcce_job()->hdr->nue; u++) n += RCCE_ue_to_dev(u) == dev;
  return n;
}

int RCCE_dev_ue(void) {
  int me = RCCE_ue(), dev = RCCE_ue_to_dev(me), rank = 0;
  for (int u = 0; u < me; u++) rank += RCCE_ue_to_dev(u) == dev;
  return rank;
}
