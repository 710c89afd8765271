/* Where rccerun's own files are: its bin/ directory (build or install tree). */
#ifndef OPENSCC_LAUNCH_OWN_DIR_H
#define OPENSCC_LAUNCH_OWN_DIR_H

#include <stddef.h>

/* The directory rccerun's executable is in; 0, or -1 when /proc/self/exe cannot be read. */
int launch_own_directory(char *out, size_t len);

#endif
