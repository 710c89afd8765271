/* The unsupported operations (prov_stubs.h). */
#include <rdma/fi_errno.h>

#include "prov_stubs.h"

#define PROV_STUB_DEFINE(ret, name, params) \
  ret name params { return -FI_ENOSYS; }
PROV_STUB_LIST(PROV_STUB_DEFINE)
