/* openscc-copy-core: the program rccerun starts on each copy core
 * (rccerun --copy-cores K, include/scc_copy.h): one UE of the job with its
 * clock, serving copy requests until the program's UEs have all left. */
#include "../../rcce/rcce_iface.h"
#include "../copy_internal.h"

int main(void) {
  rcce_init_service();
  copy_serve();
  rcce_finalize_service();
  return 0;
}
