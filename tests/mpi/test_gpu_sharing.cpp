// first_shared_gpu: which ranks share a GPU (NCCL refuses them; their exchanges go through the host).
#include <gtest/gtest.h>

#include "core/distributed/gpu_sharing.hpp"

namespace {

using sim::first_shared_gpu;

TEST(GpuSharing, EachRankWithAGpuOfItsOwnSharesNone) {
  EXPECT_EQ(first_shared_gpu({}), std::make_pair(-1, -1));
  EXPECT_EQ(first_shared_gpu({"node1 0000:18:00.0"}), std::make_pair(-1, -1));
  EXPECT_EQ(first_shared_gpu({"node1 0000:18:00.0", "node1 0000:2A:00.0", "node2 0000:18:00.0"}),
            std::make_pair(-1, -1));  // the same bus id on another host is another GPU
}

TEST(GpuSharing, TheFirstPairInRankOrderIsNamed) {
  EXPECT_EQ(first_shared_gpu({"h 0000:18:00.0", "h 0000:18:00.0"}), std::make_pair(0, 1));
  EXPECT_EQ(first_shared_gpu({"h A", "h B", "h C", "h B", "h A"}), std::make_pair(1, 3));
  EXPECT_EQ(first_shared_gpu({"h A", "h B", "h C", "h D", "h A"}), std::make_pair(0, 4));
}

}  // namespace
