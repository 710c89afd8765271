/* RCCE 2.0's barrier algorithms (RCCE.h; docs/rcce.md "RCCE 2.0's
 * extensions").  RWTH's RCCE 2.0 offered several algorithms side by side
 * (tree, tournament, dissemination, test-and-set, all-in-register) to study
 * their cost on the SCC.  They all have a barrier's semantics, which is what
 * a program relies on; here each is OpenSCC's one barrier (comm.c: a
 * counter line in the first member's MPB), so their timings do not differ
 * by algorithm. */
#include "rcce_internal.h"

/* A tree of the communicator's members with fanout children per node, in
 * rank order (rank r's children are fanout*r+1 .. fanout*r+fanout), as UE
 * numbers. */
int RCCE_tree_init(RCCE_COMM *comm, tree_t *tree, int fanout) {
  if (!comm || !comm->initialized || comm->my_rank < 0 || !tree || fanout < 1)
    return rcce_error(RCCE_DEBUG_COMM, RCCE_ERROR_COMM_UNDEFINED, "RCCE_tree_init",
                      "bad communicator, tree or fanout %d", fanout);
  int r = comm->my_rank;
  tree->parent = r ? comm->member[(r - 1) / fanout] : -1;
  tree->num_children = 0;
  for (int k = 1; k <= fanout && (long)fanout * r + k < comm->size; k++)
    tree->child[tree->num_children++] = comm->member[fanout * r + k];
  return RCCE_SUCCESS;
}

int RCCE_tree_barrier(RCCE_COMM *comm, tree_t *tree) {
  (void)tree;
  return RCCE_barrier(comm);
}

int RCCE_tournament_barrier(RCCE_COMM *comm) { return RCCE_barrier(comm); }
int RCCE_tournament_fixed_barrier(RCCE_COMM *comm) { return RCCE_barrier(comm); }
int RCCE_dissemination_barrier(RCCE_COMM *comm) { return RCCE_barrier(comm); }
int RCCE_TNS_barrier(RCCE_COMM *comm) { return RCCE_barrier(comm); }
int RCCE_AIR_barrier(RCCE_COMM *comm) { return RCCE_barrier(comm); }
int RCCE_AIR_barrier2(RCCE_COMM *comm) { return RCCE_barrier(comm); }

int RCCE_nb_barrier(RCCE_COMM *comm) { return rcce_nb_barrier(comm, "RCCE_nb_barrier"); }
int RCCE_nb_TNS_barrier(RCCE_COMM *comm) { return rcce_nb_barrier(comm, "RCCE_nb_TNS_barrier"); }
int RCCE_nb_AIR_barrier(RCCE_COMM *comm) { return rcce_nb_barrier(comm, "RCCE_nb_AIR_barrier"); }
