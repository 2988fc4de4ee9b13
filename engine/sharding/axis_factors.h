#pragma once
// The per-axis factor list of an op strategy, held inline: a strategy is copied and compared in the
// search's innermost loops, and a mesh has at most kMaxMeshAxes axes, so it never needs the heap.

#include "engine/cluster/mesh.h"

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace shardscope {

/// For each mesh axis, the index of the op factor it splits, or -1 for none; at most kMaxMeshAxes.
class AxisFactors {
public:
    AxisFactors() = default;
    /// `n` axes, each splitting `factor`.
    AxisFactors(std::size_t n, int factor) {
        if (n > kMaxMeshAxes)
            throw std::length_error("a strategy covers at most " + std::to_string(kMaxMeshAxes) + " mesh axes");
        size_ = std::uint8_t(n);
        std::fill_n(items_.begin(), n, factor);
    }
    /// The listed factors, one per axis.
    AxisFactors(std::initializer_list<int> factors) {
        for (int f : factors)
            push_back(f);
    }

    /// Number of axes.
    std::size_t size() const { return size_; }
    /// True when it covers no axis.
    bool empty() const { return size_ == 0; }
    /// The factor split by axis `a`.
    int& operator[](std::size_t a) { return items_[a]; }
    /// The factor split by axis `a`.
    int operator[](std::size_t a) const { return items_[a]; }
    /// First axis's entry, for iteration.
    int* begin() { return items_.data(); }
    /// Past the last axis's entry.
    int* end() { return items_.data() + size_; }
    /// First axis's entry, for iteration.
    const int* begin() const { return items_.data(); }
    /// Past the last axis's entry.
    const int* end() const { return items_.data() + size_; }
    /// Appends the factor of one more axis.
    void push_back(int factor) {
        if (size_ == kMaxMeshAxes)
            throw std::length_error("a strategy covers at most " + std::to_string(kMaxMeshAxes) + " mesh axes");
        items_[size_++] = factor;
    }

    /// Same axes, same factors.
    bool operator==(const AxisFactors& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }
    /// Lexicographic over the axes, as std::vector compares.
    std::strong_ordering operator<=>(const AxisFactors& o) const {
        return std::lexicographical_compare_three_way(begin(), end(), o.begin(), o.end());
    }

private:
    std::array<int, kMaxMeshAxes> items_{};
    std::uint8_t size_ = 0;
};

} // namespace shardscope
