/*
 * openscc_api.h - OPENSCC_API marks a library definition that programs call
 * but no public header declares under the library's own build flags: the
 * compile-time variants RCCE.h renames to (RCCE_init_gory, RCCE_send_gory,
 * RCCE_flag_alloc_singlebit, ...) and the hooks `rccecc --model-build`
 * programs call (__sanitizer_cov_trace_pc, __asan_*_noabort).  The library
 * is built with -fvisibility=hidden and librcce.a keeps only default-
 * visibility symbols global (docs/architecture.md "The library's surface").
 */
#ifndef OPENSCC_API_H
#define OPENSCC_API_H

#define OPENSCC_API __attribute__((visibility("default")))

#endif
