/* Board queries of iRCCE for systems of several boards ([SCC-2BOARD] sec.
 * IV-B): with RCCE_ue and RCCE_num_ues they tell a UE where it sits in the
 * coupled system.  Boards are those of the job's chip (rccerun --boards),
 * numbered from 0; UEs are numbered across them (docs/cluster.md). */
#include "ircce_internal.h"

static const struct chip_desc *chip(void) { return &rcce_job()->hdr->chip; }

int iRCCE_dev(void) { return chip_board_of_core(chip(), rcce_my_core()); }

int iRCCE_num_devs(void) { return chip()->boards; }

int RCCE_num_ues_dev(int dev) {
  const struct hw_job *j = rcce_job();
  int n = 0;
  for (int u = 0; u < (int)j->hdr->nue; u++) n += chip_board_of_core(chip(), hw_ue(j, u)->core) == dev;
  return n;
}
