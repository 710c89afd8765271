/*
 * pingpong_bench.c - RCCE half round-trip time between UE 0 and UE 1, with
 * the basic interface's RCCE_send / RCCE_recv (common/pingpong_driver.h).
 *
 * Note: in RCCE 1.x/2.0 a 0-byte RCCE_send/RCCE_recv returns at once without
 * synchronising, so the 0-byte line measures call overhead, not a message.
 */
#include "rcce_main.h"

#define BENCH_IMPL "rcce"
static void xport_send(char *buf, long size, int peer) { RCCE_send(buf, (size_t)size, peer); }
static void xport_recv(char *buf, long size, int peer) { RCCE_recv(buf, (size_t)size, peer); }
#include "../common/pingpong_driver.h"

int main(int argc, char **argv) { return rcce_bench_main(argc, argv, pingpong_run); }
