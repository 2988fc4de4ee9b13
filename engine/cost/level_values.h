#pragma once
// Per link level figures, innermost level first, held without a heap allocation: collectives are
// priced millions of times a search, each with a value per level (engine/util/limits.h bounds the
// levels a cluster may have).

#include "engine/util/limits.h"

#include <array>
#include <cassert>
#include <cstddef>

namespace shardscope {

/// One double per link level of a cluster, at most kMaxLinkLevels of them.
class LevelValues {
public:
    LevelValues() = default;
    /// `levels` values, each `value`.
    explicit LevelValues(std::size_t levels, double value = 0) : size_(levels) {
        assert(levels <= values_.size());
        values_.fill(value);
    }

    /// Number of levels.
    std::size_t size() const { return size_; }
    /// The value of level `l`.
    double& operator[](std::size_t l) { return values_[l]; }
    /// The value of level `l`.
    double operator[](std::size_t l) const { return values_[l]; }
    /// The values, innermost level first.
    const double* begin() const { return values_.data(); }
    const double* end() const { return values_.data() + size_; }
    double* begin() { return values_.data(); }
    double* end() { return values_.data() + size_; }

private:
    std::array<double, std::size_t(kMaxLinkLevels)> values_{};
    std::size_t size_ = 0;
};

} // namespace shardscope
