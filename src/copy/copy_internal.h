/* The copy layer's parts (client.c, service.c): above lut and rcce. */
#ifndef OPENSCC_COPY_INTERNAL_H
#define OPENSCC_COPY_INTERNAL_H

#include "copy_shared.h"

/* A copy core's life: serve requests until the launcher says stop
 * (service.c, called by openscc-copy-core after rcce_init_service). */
void copy_serve(void);

#endif
