#pragma once
// How far ahead of the compute a pass issues its parameter gathers (docs/DESIGN.md, Overlap): in the
// order the pass uses them, as many as the reserved workspace holds beside the largest working set
// of the ops that run before they are used. DeepSpeed ZeRO-3 prefetches by bucket size; FSDP2 keeps
// the next module unsharded while the current one computes (CostModel reserves room for one more op's
// gathered weights beside each op's own, so at least the next gather always fits).
//
// Example: workspace 10 GB; positions 0..3 with gathers of 4, 0, 4, 4 GB and working sets (their
// own gathers included) of 6, 1, 6, 6 GB. Before position 0: its own gather, then position 2's
// (6 + 4 <= 10); position 3's would need max(6, 1, 6) + 4 + 4 > 10. Before position 2: position 3's
// (6 + 4 <= 10).

#include <cstddef>
#include <deque>
#include <vector>

namespace shardscope {

/// The gather schedule of one pass.
class GatherPrefetch {
public:
    /// `gatherBytes` and `workingSet` per position of the pass (the working set includes the position's
    /// own gathered bytes); `workspace` the bytes reserved for both. Keeps references: the vectors must
    /// outlive it.
    GatherPrefetch(const std::vector<double>& gatherBytes, const std::vector<double>& workingSet, double workspace);

    /// What to issue before the compute at position `i`; called for i = 0, 1, ... in order.
    struct Issue {
        bool own = false;      ///< position i's own gather, not issued ahead
        std::size_t first = 0; ///< later positions whose gathers to issue now, in order:
        std::size_t last = 0;  ///< gathers()[first, last)
    };
    /// The gathers to issue before position `i`'s compute.
    Issue at(std::size_t i);
    /// The positions with a gather, ascending.
    const std::vector<std::size_t>& gathers() const { return gathers_; }

private:
    const std::vector<double>& bytes_;
    const std::vector<double>& working_;
    double workspace_;
    std::vector<std::size_t> gathers_;           ///< positions with a gather, ascending
    std::size_t next_ = 0;                        ///< index into gathers_ of the next not issued
    double outstanding_ = 0;                      ///< bytes issued ahead and not yet used
    std::deque<std::size_t> issued_;              ///< positions issued ahead, not yet used
    std::deque<std::size_t> peak_;                ///< positions [i, end_) by falling working set
    std::size_t end_ = 0;                         ///< positions below it are in peak_'s window
};

} // namespace shardscope
