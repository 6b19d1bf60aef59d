// The lookup of device copies kept for host ranges (core/backend/interface/resident_inputs.h), with a host array
// standing in for the device copy: a range inside a kept one is served at its offset, anything else is not.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <vector>

#include "core/backend/interface/resident_inputs.h"

namespace attnscope::test {
namespace {

/// A "device copy": owns a host array; get() is its first byte.
struct FakeCopy {
    std::unique_ptr<std::vector<float>> data;
    float* get() const { return data->data(); }
};

TEST(ResidentInputs, ServesRangesInsideAKeptCopyAtTheirOffset) {
    std::cout << "[case] two kept tensors: the whole, a head inside, a range crossing the end, one not kept\n";
    std::vector<float> q(100), k(50), other(10);
    ResidentInputs<FakeCopy> kept;
    FakeCopy cq{std::make_unique<std::vector<float>>(100)}, ck{std::make_unique<std::vector<float>>(50)};
    float* dq = cq.get();
    float* dk = ck.get();
    kept.add(q.data(), q.size() * sizeof(float), std::move(cq));
    kept.add(k.data(), k.size() * sizeof(float), std::move(ck));
    EXPECT_EQ(kept.find(q.data(), 100 * sizeof(float)), dq) << "the whole tensor";
    EXPECT_EQ(kept.find(q.data() + 40, 20 * sizeof(float)), dq + 40) << "a head inside it, at the same offset";
    EXPECT_EQ(kept.find(k.data() + 49, sizeof(float)), dk + 49) << "the last float";
    EXPECT_EQ(kept.find(q.data() + 90, 20 * sizeof(float)), nullptr) << "a range crossing the end is not served";
    EXPECT_EQ(kept.find(other.data(), 10 * sizeof(float)), nullptr) << "a tensor never kept";
    EXPECT_EQ(kept.find(q.data(), 101 * sizeof(float)), nullptr) << "longer than the kept copy";
    EXPECT_TRUE(kept.contains(k.data(), 50 * sizeof(float)));
    EXPECT_EQ(kept.bytes(), 150 * sizeof(float));
    kept.clear();
    EXPECT_EQ(kept.find(q.data(), sizeof(float)), nullptr) << "nothing is kept after clear()";
    EXPECT_EQ(kept.bytes(), 0u);
}

}  // namespace
}  // namespace attnscope::test
