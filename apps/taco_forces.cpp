// taco_forces.cpp - the force loop of [MESH-2011]'s Barnes-Hut example on sharing spaces (scc_taco.hpp,
// docs/taco.md), with direct summation instead of the tree: bodies in a replicated (entry-consistency)
// storage container; every step each UE reads every body, computes the new state of its own bodies, and
// writes them back after a barrier.  Each UE also counts its steps in its own field of one object of a
// migration space, through a MultipleWriter.  UE 0 checks the bodies against a sequential run (the same
// arithmetic, so the same bits) and the counters.
//
// build: rccec++ -O2 apps/taco_forces.cpp -o taco_forces       usage: taco_forces [bodies=64] [steps=10]
// prints: "taco_forces: N bodies, S steps, kinetic energy E" and "taco_forces: OK"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "RCCE.h"
#include "scc_taco.hpp"

using namespace openscc::taco;

struct Body {
  double x, y, vx, vy, m;
};

struct Counters {
  int steps[RCCE_MAXNP];
};

static Body initial(int i) {
  return Body{std::cos(i * 0.7) * (1 + i % 5), std::sin(i * 1.3) * (1 + i % 3), 0, 0, 1.0 + (i % 4) * 0.25};
}

// The new state of body i given every body's state (the same operation order on every UE and sequentially).
static Body step_body(const std::vector<Body> &all, int i) {
  const double dt = 0.01, soft = 0.05;
  Body b = all[i];
  double fx = 0, fy = 0;
  for (std::size_t j = 0; j < all.size(); j++) {
    if ((int)j == i) continue;
    double dx = all[j].x - b.x, dy = all[j].y - b.y, r2 = dx * dx + dy * dy + soft, inv = 1 / (r2 * std::sqrt(r2));
    fx += all[j].m * dx * inv, fy += all[j].m * dy * inv;
  }
  b.vx += dt * fx, b.vy += dt * fy, b.x += dt * b.vx, b.y += dt * b.vy;
  return b;
}

int RCCE_APP(int argc, char **argv) {
  RCCE_init(&argc, &argv);
  int n = argc > 1 ? std::atoi(argv[1]) : 64, steps = argc > 2 ? std::atoi(argv[2]) : 10;
  int me = RCCE_ue(), ues = RCCE_num_ues();
  StorageContainer<Body> bodies(n, Consistency::entry);
  Space<Counters> counters(1, Consistency::migration, Counters{});
  bodies.map([&](Shared<Body> h) { *Writer<Body>(bodies, h) = initial((int)h.index); });
  bodies.step();
  std::vector<Body> all(n), mine(n);
  for (int s = 0; s < steps; s++) {
    for (int j = 0; j < n; j++) all[j] = *Reader<Body>(bodies, bodies[j]);
    bodies.map([&](Shared<Body> h) { mine[h.index] = step_body(all, (int)h.index); });
    bodies.step();  // every UE has read the old states
    MultipleWriter<Counters>(counters, counters[0])->steps[me]++;
    bodies.step([&](Shared<Body> h) { *Writer<Body>(bodies, h) = mine[h.index]; });
  }
  double kinetic = bodies.reduce([](const Body &b) { return 0.5 * b.m * (b.vx * b.vx + b.vy * b.vy); });
  double fastest = bodies.reduce([](const Body &b) { return std::sqrt(b.vx * b.vx + b.vy * b.vy); }, RCCE_MAX);
  int wrong = 0;
  if (me == 0) {
    std::vector<Body> seq(n), next(n);
    for (int i = 0; i < n; i++) seq[i] = initial(i);
    for (int s = 0; s < steps; s++) {
      for (int i = 0; i < n; i++) next[i] = step_body(seq, i);
      seq = next;
    }
    for (int i = 0; i < n; i++) {
      Body b = *Reader<Body>(bodies, bodies[i]);
      wrong += b.x != seq[i].x || b.y != seq[i].y || b.vx != seq[i].vx || b.vy != seq[i].vy;
    }
    double seq_fastest = 0;
    for (int i = 0; i < n; i++)
      seq_fastest = std::fmax(seq_fastest, std::sqrt(seq[i].vx * seq[i].vx + seq[i].vy * seq[i].vy));
    wrong += fastest != seq_fastest;
    Counters c = *Reader<Counters>(counters, counters[0]);
    for (int u = 0; u < ues; u++) wrong += c.steps[u] != steps;
    std::printf("taco_forces: %d bodies, %d steps, kinetic energy %.6f\n", n, steps, kinetic);
  }
  RCCE_barrier(&RCCE_COMM_WORLD);
  RCCE_finalize();
  if (me == 0) std::printf(wrong ? "taco_forces: FAILED (%d wrong)\n" : "taco_forces: OK\n", wrong);
  return wrong != 0;
}
