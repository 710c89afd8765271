/*
 * scc_power.h - OpenSCC's emulated power sensor (docs/model.md "Power
 * sensor").  The SCC's board measured the chip's supply; in model mode
 * (rccerun --model scc) a program reads the modeled chip power instead.
 */
#ifndef SCC_POWER_H
#define SCC_POWER_H

#ifdef __cplusplus
extern "C" {
#endif

/* The public API: exported from librcce.a, whose other symbols are hidden
 * (docs/architecture.md "The library's surface"). */
#pragma GCC visibility push(default)

/* The chip's power in watts now: every core's dynamic power at its tile's
 * frequency and its domain's voltage (cores running a UE count as busy,
 * others as idle), every voltage domain's static power and the uncore.
 * Returns -1.0 in native mode (no model to read) or before RCCE_init. */
double scc_power_read(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
