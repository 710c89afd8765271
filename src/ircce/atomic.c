/* iRCCE's atomic increment registers (AIR; iRCCE.h under -DAIR).  The SCC's
 * later FPGA firmware gave every core two registers that increment when
 * read, reached through the system interface; iRCCE 2.0 allocates them in
 * call order (the k-th allocation of every UE is the same register) and
 * builds its barrier on them.  Here they are words of the job segment
 * (ircce_shared.h) changed with atomic operations; model mode charges a word
 * read at the system interface's tile of the register's board. */
#define AIR 1
#include "ircce_internal.h"
#include "ircce_shared.h"

static iRCCE_AIR airs[IRCCE_AIRS_PER_UE * RCCE_MAXNP];
static int allocated; /* by this UE, in call order */

/* The register's word, or NULL (reported) for a handle iRCCE_atomic_alloc
 * did not give. */
static _Atomic int32_t *word_of(iRCCE_AIR *reg, const char *where) {
  if (reg < airs || reg >= airs + allocated) {
    rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, where, "not a register from iRCCE_atomic_alloc");
    return NULL;
  }
  return (_Atomic int32_t *)(void *)reg->counter;
}

static void charge(iRCCE_AIR *reg) {
  if (!timing_enabled) return;
  const struct chip_desc *c = &rcce_job()->hdr->chip;
  int k = (int)(reg - airs), owner = hw_ue(rcce_job(), k % rcce_ue_count())->core;
  int board = chip_board_of_core(c, owner);
  timing_tas_access(chip_core_id(c, c->sif_tile_x, c->sif_tile_y, 0) + board * (chip_num_cores(c) / c->boards));
}

int iRCCE_atomic_alloc(iRCCE_AIR **reg) {
  TIMING_SCOPE();
  int n = rcce_ue_count();
  if (!reg) return rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, "iRCCE_atomic_alloc", "NULL handle pointer");
  if (hw_hosts_many(rcce_job()))
    return rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, "iRCCE_atomic_alloc",
                      "the registers are not shared between hosts (rccerun --hosts)");
  if (allocated >= IRCCE_AIRS_PER_UE * n)
    return rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, "iRCCE_atomic_alloc", "all %d registers are taken",
                      IRCCE_AIRS_PER_UE * n);
  int k = allocated++;
  _Atomic int32_t *w = &ircce_air_shared_of(rcce_job(), k % n)->reg[k / n];
  airs[k].counter = airs[k].init = (int *)(void *)w;
  *reg = &airs[k];
  return iRCCE_atomic_write(*reg, 0);
}

int iRCCE_atomic_inc(iRCCE_AIR *reg, int *value) {
  TIMING_SCOPE();
  _Atomic int32_t *w = word_of(reg, "iRCCE_atomic_inc");
  if (!w) return iRCCE_ERROR;
  charge(reg);
  int old = __atomic_fetch_add(w, 1, __ATOMIC_SEQ_CST);
  if (value) *value = old;
  return iRCCE_SUCCESS;
}

int iRCCE_atomic_read(iRCCE_AIR *reg, int *value) {
  TIMING_SCOPE();
  _Atomic int32_t *w = word_of(reg, "iRCCE_atomic_read");
  if (!w || !value)
    return w ? rcce_error(RCCE_DEBUG_COMM, iRCCE_ERROR, "iRCCE_atomic_read", "NULL value") : iRCCE_ERROR;
  charge(reg);
  *value = __atomic_load_n(w, __ATOMIC_SEQ_CST);
  return iRCCE_SUCCESS;
}

int iRCCE_atomic_write(iRCCE_AIR *reg, int value) {
  TIMING_SCOPE();
  _Atomic int32_t *w = word_of(reg, "iRCCE_atomic_write");
  if (!w) return iRCCE_ERROR;
  charge(reg);
  __atomic_store_n(w, value, __ATOMIC_SEQ_CST);
  return iRCCE_SUCCESS;
}
