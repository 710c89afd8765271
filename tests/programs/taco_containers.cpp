// Containers of scc_taco.hpp: a control container's members (one per UE: local, other), predicates (the
// sharing domains' leaders, my domain), deferred steps and reductions, a reduction over a struct with an
// op of its own.  Prints one line per UE with what it saw; UE 0 prints OK.
#include <cstdio>
#include <cstdlib>

#include "RCCE.h"
#include "scc_taco.hpp"
#include "testprog.h"

using namespace openscc::taco;

struct Tally {
  long visits, owner;
};

struct MinMax {
  long lo, hi;
};

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  testprog_name = "taco_containers";
  int me = testprog_ue = RCCE_ue(), n = RCCE_num_ues();
  ControlContainer<Tally> ctl(Tally{0, -1});
  if (ctl.size() != static_cast<std::size_t>(n)) fail("%zu members for %d UEs", ctl.size(), n);
  ctl.step([&](Shared<Tally> h) { Writer<Tally>(ctl, h)->owner = me; });
  // Every UE visits every member through other(u); the counts all arrive.
  for (int u = 0; u < n; u++) Writer<Tally>(ctl, ctl.other(u))->visits++;
  ctl.step();
  Tally mine = *Reader<Tally>(ctl, ctl.local());
  if (mine.owner != me || mine.visits != n) fail("my member: owner %ld, visits %ld", mine.owner, mine.visits);
  // Deferred step: my part now, the barrier at get().
  auto done = ctl.step_deferred([&](Shared<Tally> h) { Writer<Tally>(ctl, h)->visits += 100; });
  done.get();
  // A reduction of a struct by an op of its own, and its deferred form.
  auto span = [](MinMax a, MinMax b) { return MinMax{a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}; };
  auto of = [](const Tally &t) { return MinMax{t.owner, t.owner}; };
  MinMax all = ctl.reduce(of, span, MinMax{1L << 40, -1});
  if (all.lo != 0 || all.hi != n - 1) fail("owners span %ld..%ld", all.lo, all.hi);
  auto deferred =
      ctl.reduce_deferred([](const Tally &t) { return t.visits; }, [](long a, long b) { return a + b; }, 0L);
  long visits = deferred.get();
  if (visits != (long)n * (n + 100)) fail("%ld visits in all, expected %ld", visits, (long)n * (n + 100));
  // Predicates: the leaders of the sharing domains, and my domain.
  long leaders = ctl.reduce([](const Tally &) { return 1L; }, [](long a, long b) { return a + b; }, 0L, on_leaders{});
  long mates =
      ctl.reduce([](const Tally &) { return 1L; }, [](long a, long b) { return a + b; }, 0L, in_domain{domain_of(me)});
  long expect_leaders = 0, expect_mates = 0;
  for (int u = 0; u < n; u++) expect_leaders += leader_of(u) == u, expect_mates += domain_of(u) == domain_of(me);
  if (leaders != expect_leaders || mates != expect_mates)
    fail("%ld leaders (want %ld), %ld in my domain (want %ld)", leaders, expect_leaders, mates, expect_mates);
  std::printf("taco_containers: UE %d domain %d leader %d, %ld domains\n", me, domain_of(me), leader_of(me), leaders);
  RCCE_barrier(&RCCE_COMM_WORLD);
  if (me == 0) std::printf("taco_containers: OK\n");
  RCCE_finalize();
  return 0;
}
