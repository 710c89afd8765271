/* The accessors of rcce_iface.h: what the layers above read of rcce's state. */
#include "rcce_internal.h"

int rcce_my_ue(void) { return rcce_g.ue; }
int rcce_ue_count(void) { return rcce_g.nue; }
int rcce_my_core(void) { return rcce_g.core; }
struct hw_job *rcce_job(void) {
  return &rcce_g.job;
}
uint32_t rcce_line_bytes(void) { return rcce_g.line; }
int rcce_running(void) { return rcce_g.initialized && !rcce_g.finalized; }
int rcce_basic_interface(void) { return rcce_g.initialized && !rcce_g.gory; }
int rcce_big_flags(void) { return rcce_g.flag_mode == RCCE_FLAGMODE_BIG; }
size_t rcce_last_recv_size(void) { return rcce_g.last_recv_size; }

void rcce_count_message(int sending, int peer, size_t size) { rcce_counters_add_message(sending, peer, size); }

int rcce_flag_payload_offset(RCCE_FLAG flag, uint32_t *off) {
  struct rcce_iflag f;
  int rc = rcce_iflag_from_big(flag, &f);
  if (rc == RCCE_SUCCESS) *off = f.off + 4; /* after the 4-byte value */
  return rc;
}

t_vcharp rcce_basic_buffer_of(int ue) { return RCCE_comm_buffer[ue] + rcce_basic_buff_off(); }
