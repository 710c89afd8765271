// scc_taco.hpp - sharing spaces for C++ RCCE programs, after MESH/TACO ([MESH-2011] (docs/references.md);
// docs/taco.md).  Header-only, over RCCE's off-chip shared memory and test-and-set locks.
//
// A Space<T> holds `size` objects of a trivially copyable T in shared memory, created collectively (every
// UE constructs its spaces in the same order).  Shared<T> is a handle (the object's index): trivially
// copyable, so it can be sent to another UE.  Objects are reached only through access objects, which
// acquire consistency when they are made and release it when they end:
//   Reader<T>          a consistent copy to read;
//   Writer<T>          exclusive: the object's lock is held while the writer lives, its copy written back;
//   MultipleWriter<T>  concurrent writers of different parts: each writes back only the bytes it changed.
// Two kinds of space, as in the paper:
//   Consistency::entry      replicated: each UE keeps a replica of every object it reads and refreshes it
//                           when the object's version has moved (entry consistency: consistent on acquire);
//   Consistency::migration  one copy: an access moves the object to the accessor for its duration (under
//                           the object's lock, readers too) and back.
// Containers: StorageContainer<T> (a Space with map/step/reduce over its objects, each UE taking the
// objects i with i % UEs == its number, "owner computes") and ControlContainer<T> (one member per UE, with
// local() and other(u)); their operations take predicates (AllMembers, on_leaders, in_domain: the
// sharing domains of one memory controller each) and have deferred forms (Future).
#ifndef SCC_TACO_HPP
#define SCC_TACO_HPP

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "RCCE.h"
#include "scc_lut.h"

namespace openscc::taco {

enum class Consistency { entry, migration };

template <class T>
struct Shared {
  std::uint32_t index;
};

template <class T>
class Space {
  static_assert(std::is_trivially_copyable_v<T>, "objects travel as bytes: T must be trivially copyable");

 public:
  // Collective: every UE, in the same order of spaces.  Objects start as `init`.
  Space(std::size_t size, Consistency kind, const T &init = T{})
      : size_(size), kind_(kind), replica_(size, init), seen_(size, 0) {
    slot_ = (sizeof(Slot) + RCCE_LINE_SIZE - 1) / RCCE_LINE_SIZE * RCCE_LINE_SIZE;
    base_ = (unsigned char *)RCCE_shmalloc(size_ ? size_ * slot_ : RCCE_LINE_SIZE);
    if (!base_)
      throw std::runtime_error("scc_taco: no shared memory for a space of " + std::to_string(size) +
                               " objects (rccerun --shm-size)");
    if (RCCE_ue() == 0)
      for (std::size_t i = 0; i < size_; i++) *slot(i) = Slot{0, init};
    RCCE_barrier(&RCCE_COMM_WORLD);
  }
  Space(const Space &) = delete;
  Space &operator=(const Space &) = delete;
  ~Space() { RCCE_shfree((t_vcharp)base_); }

  std::size_t size() const { return size_; }
  Consistency kind() const { return kind_; }
  Shared<T> operator[](std::size_t i) const {
    if (i >= size_)
      throw std::out_of_range("scc_taco: object " + std::to_string(i) + " of a space of " + std::to_string(size_));
    return Shared<T>{static_cast<std::uint32_t>(i)};
  }

 private:
  template <class>
  friend class Access;

  struct Slot {
    std::uint64_t version;  // writes released so far
    T value;
  };
  Slot *slot(std::uint32_t i) const { return reinterpret_cast<Slot *>(base_ + i * slot_); }
  // The object's guard: a test-and-set register, shared round-robin between objects.
  int lock_of(std::uint32_t i) const { return static_cast<int>(i % static_cast<std::uint32_t>(RCCE_num_ues())); }
  void lock(std::uint32_t i) const { RCCE_acquire_lock(lock_of(i)); }
  void unlock(std::uint32_t i) const {
    RCCE_shflush();  // the shared writes before the release, as on the SCC (write-combine buffer)
    RCCE_release_lock(lock_of(i));
  }
  // Entry consistency's acquire: the replica refreshed when a newer version was released.
  const T &refresh(std::uint32_t i) {
    const Slot *s = slot(i);
    if (s->version != seen_[i]) {
      std::memcpy(&replica_[i], (const void *)&s->value, sizeof(T));
      seen_[i] = s->version;
    }
    return replica_[i];
  }
  void publish(std::uint32_t i, const T &value) {
    Slot *s = slot(i);
    std::memcpy((void *)&s->value, &value, sizeof(T));
    seen_[i] = ++s->version;
    replica_[i] = value;
  }

  std::size_t size_, slot_ = 0;
  Consistency kind_;
  unsigned char *base_ = nullptr;
  std::vector<T> replica_;           // entry consistency: this UE's replicas
  std::vector<std::uint64_t> seen_;  // their versions
};

// What the access objects share: the object, its copy here (value_), and the space's guard and consistency
// steps.  Made, it has taken the object's lock and an up-to-date copy; each kind decides when to let go.
template <class T>
class Access {
 public:
  Access(const Access &) = delete;
  Access &operator=(const Access &) = delete;

 protected:
  Access(Space<T> &space, Shared<T> h) : space_(space), i_(h.index) {
    space_.lock(i_);
    value_ = space_.refresh(i_);
  }
  void lock() { space_.lock(i_); }
  void unlock() { space_.unlock(i_); }
  const T &refresh() { return space_.refresh(i_); }
  void publish(const T &value) { space_.publish(i_, value); }
  bool migrating() const { return space_.kind() == Consistency::migration; }

  Space<T> &space_;
  std::uint32_t i_;
  T value_;
};

// A consistent copy to read.  Entry consistency: the replica, refreshed under the object's lock if it is
// stale, read without the lock.  Migration: the object itself, moved here under its lock for the reader's
// life.
template <class T>
class Reader : public Access<T> {
 public:
  Reader(Space<T> &space, Shared<T> h) : Access<T>(space, h) {
    if (!this->migrating()) this->unlock();
  }
  ~Reader() {
    if (this->migrating()) this->unlock();
  }
  const T &operator*() const { return this->value_; }
  const T *operator->() const { return &this->value_; }
};

// Exclusive access: the object's lock from construction to destruction, the new value released then.
template <class T>
class Writer : public Access<T> {
 public:
  Writer(Space<T> &space, Shared<T> h) : Access<T>(space, h) {}
  ~Writer() {
    this->publish(this->value_);
    this->unlock();
  }
  T &operator*() { return this->value_; }
  T *operator->() { return &this->value_; }
};

// Concurrent writers of different parts of one object: each works on its own copy (and a twin of it) without
// the lock, and at its end writes back, under the lock, only the bytes it changed ([MESH-2011]'s multiple-
// writer access; two writers changing the same byte: the later release wins).
template <class T>
class MultipleWriter : public Access<T> {
 public:
  MultipleWriter(Space<T> &space, Shared<T> h) : Access<T>(space, h), twin_(this->value_) { this->unlock(); }
  ~MultipleWriter() {
    this->lock();
    T merged = this->refresh();
    auto *out = reinterpret_cast<unsigned char *>(&merged);
    const auto *mine = reinterpret_cast<const unsigned char *>(&this->value_);
    const auto *before = reinterpret_cast<const unsigned char *>(&twin_);
    for (std::size_t b = 0; b < sizeof(T); b++)
      if (mine[b] != before[b]) out[b] = mine[b];
    this->publish(merged);
    this->unlock();
  }
  T &operator*() { return this->value_; }
  T *operator->() { return &this->value_; }

 private:
  T twin_;
};

// Which members a collective operation takes ([MESH-2011]: a boolean predicate on the members).
struct AllMembers {
  bool operator()(std::size_t) const { return true; }
};

// The sharing domains ([MESH-2011] sec. III: cores that share one memory device, one per DRAM controller on
// the SCC; scc_memory_controller) and their leaders (a domain's lowest UE), as predicates on members that
// are UEs (a ControlContainer's): on_leaders() takes the leaders' members, in_domain(d) those of domain d
// (in_domain(domain_of(RCCE_ue())): my domain).
inline int domain_of(int ue) { return scc_memory_controller(ue); }
inline int leader_of(int ue) {
  for (int u = 0; u < RCCE_num_ues(); u++)
    if (domain_of(u) == domain_of(ue)) return u;
  return ue;
}
struct on_leaders {
  bool operator()(std::size_t ue) const { return leader_of(static_cast<int>(ue)) == static_cast<int>(ue); }
};
struct in_domain {
  int domain;
  bool operator()(std::size_t ue) const { return domain_of(static_cast<int>(ue)) == domain; }
};

// A deferred-synchronous result ([MESH-2011] Table II's `future` forms): the operation has done its local
// part; get() (or the destructor) completes it -- collectively, so every UE must reach it.
template <class V>
class Future {
 public:
  explicit Future(std::function<V()> complete) : complete_(std::move(complete)) {}
  Future(Future &&) = default;
  Future(const Future &) = delete;
  ~Future() {
    if (complete_) complete_();
  }
  V get() {
    auto complete = std::move(complete_);
    complete_ = nullptr;
    return complete();
  }

 private:
  std::function<V()> complete_;
};

// What both kinds of container do with their members: UE u works on the members i with i % UEs == u
// ("owner computes"), [MESH-2011] Table II's collective operations.  map(f[, pick]) applies f to my
// members (those pick takes: it is asked by each member's owner); step(f[, pick]) does so and then waits
// for every UE (synchronous); step() only waits; step_deferred(f[, pick]) applies f now and waits at the
// future's get().  reduce(value, op) combines one double per member by RCCE_SUM (default), RCCE_MIN,
// RCCE_MAX or RCCE_PROD; reduce(value, op, init[, pick]) any trivially copyable V by any associative op:
// every owner publishes its members' values, and each UE folds, in member order, those its own pick takes
// (so in_domain(domain_of(RCCE_ue())) reduces over my domain, and every UE with the same pick gets the same
// bits); reduce_deferred is its future form.  All of them are collective but map.
template <class T>
class Container : public Space<T> {
 public:
  using Space<T>::Space;

  template <class F, class P = AllMembers>
  void map(F f, P pick = P{}) {
    for (std::size_t i = static_cast<std::size_t>(RCCE_ue()); i < this->size();
         i += static_cast<std::size_t>(RCCE_num_ues()))
      if (pick(i)) f((*this)[i]);
  }
  template <class F, class P = AllMembers>
  void step(F f, P pick = P{}) {
    map(f, pick);
    step();
  }
  void step() { RCCE_barrier(&RCCE_COMM_WORLD); }
  template <class F, class P = AllMembers>
  Future<void> step_deferred(F f, P pick = P{}) {
    map(f, pick);
    return Future<void>([] { RCCE_barrier(&RCCE_COMM_WORLD); });
  }
  template <class F>
  double reduce(F value, int op = RCCE_SUM) {
    double mine = op == RCCE_PROD ? 1 : op == RCCE_MIN ? HUGE_VAL : op == RCCE_MAX ? -HUGE_VAL : 0, all = 0;
    map([&](Shared<T> h) {
      double v = value(*Reader<T>(*this, h));
      mine = op == RCCE_PROD  ? mine * v
             : op == RCCE_MIN ? (v < mine ? v : mine)
             : op == RCCE_MAX ? (v > mine ? v : mine)
                              : mine + v;
    });
    RCCE_allreduce((char *)&mine, (char *)&all, 1, RCCE_DOUBLE, op, RCCE_COMM_WORLD);
    return all;
  }
  template <class V, class F, class Op, class P = AllMembers>
  V reduce(F value, Op op, V init, P pick = P{}) {
    return reduce_deferred(value, op, init, pick).get();
  }
  template <class V, class F, class Op, class P = AllMembers>
  Future<V> reduce_deferred(F value, Op op, V init, P pick = P{}) {
    static_assert(std::is_trivially_copyable_v<V>, "values travel as bytes: V must be trivially copyable");
    std::size_t n = this->size();
    auto *values = (V *)RCCE_shmalloc((n ? n : 1) * sizeof(V));
    if (!values) throw std::runtime_error("scc_taco: no shared memory for a reduction (rccerun --shm-size)");
    map([&](Shared<T> h) {
      V v = value(*Reader<T>(*this, h));
      std::memcpy((void *)&values[h.index], &v, sizeof(V));
    });
    RCCE_shflush();
    return Future<V>([values, n, op, init, pick] {
      RCCE_barrier(&RCCE_COMM_WORLD);  // every member's value is there
      V all = init, v;
      for (std::size_t i = 0; i < n; i++)
        if (pick(i)) {
          std::memcpy(&v, (const void *)&values[i], sizeof(V));
          all = op(all, v);
        }
      RCCE_barrier(&RCCE_COMM_WORLD);  // every UE has read them
      RCCE_shfree((t_vcharp)values);
      return all;
    });
  }
};

// A storage container: a space whose objects the UEs process in parallel (MESH keeps one member per
// sharing domain; here the members are the objects, dealt to the UEs).
template <class T>
class StorageContainer : public Container<T> {
 public:
  using Container<T>::Container;
};

// A control container ([MESH-2011] sec. III): exactly one member per core -- here per UE, member u owned by
// UE u -- for what each core controls of its own; local() is my member, other(u) UE u's (reach them with
// the access objects), and the collective operations run each member on its own UE.  Migration
// consistency: one copy of each member, moved to whoever accesses it.
template <class T>
class ControlContainer : public Container<T> {
 public:
  explicit ControlContainer(const T &init = T{})
      : Container<T>(static_cast<std::size_t>(RCCE_num_ues()), Consistency::migration, init) {}
  Shared<T> local() const { return (*this)[static_cast<std::size_t>(RCCE_ue())]; }
  Shared<T> other(int ue) const { return (*this)[static_cast<std::size_t>(ue)]; }
};

}  // namespace openscc::taco

#endif
