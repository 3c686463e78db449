// The replica rendezvous's table of collectives (sim/step/replica_rendezvous.hpp): a hash
// table since the --full speed work (issue 59.5), so its keys must hash apart on every field
// and compare equal only when every field is equal.

#include <gtest/gtest.h>

#include <set>

#include "sim/step/replica_rendezvous.hpp"

namespace trainsim {
namespace {

using Key = ReplicaRendezvous::Key;

TEST(ReplicaRendezvousKey, EqualOnlyWhenEveryFieldIs) {
  const Key k{2, 5, 1, 7};
  EXPECT_TRUE(k == (Key{2, 5, 1, 7}));
  EXPECT_FALSE(k == (Key{3, 5, 1, 7}));
  EXPECT_FALSE(k == (Key{2, 6, 1, 7}));
  EXPECT_FALSE(k == (Key{2, 5, 2, 7}));
  EXPECT_FALSE(k == (Key{2, 5, 1, 8}));
}

TEST(ReplicaRendezvousKey, HashesSpreadTheKeysAStepAsks) {
  // Every (kind, group, index) a 16-stage, 4-kind step asks in one step, and the gradient
  // groups' (kind -1) across 4 steps: all distinct hashes, equal keys equal hashes.
  const ReplicaRendezvous::KeyHash hash;
  std::set<size_t> seen;
  int keys = 0;
  for (int kind = -1; kind < 4; ++kind)
    for (int group = 0; group < 16; ++group)
      for (int step = 0; step < (kind < 0 ? 4 : 1); ++step)
        for (int index = 0; index < 64; ++index, ++keys) {
          const Key k{kind, group, step, index};
          EXPECT_EQ(hash(k), hash(Key{kind, group, step, index}));
          seen.insert(hash(k));
        }
  EXPECT_EQ(static_cast<int>(seen.size()), keys);
}

}  // namespace
}  // namespace trainsim
