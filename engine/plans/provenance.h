#pragma once
// Why an op's strategy splits what it does on one mesh axis: a typed record kept with the plan
// (docs/DESIGN.md, Tactics), put into words only where it is shown or saved.

#include "engine/ir/graph.h"
#include "engine/plans/tactic.h"

#include <string>
#include <vector>

namespace shardscope {

/// Where one op's choice on one mesh axis came from.
struct Provenance {
    enum class Source {
        Origin,     ///< whatever made the plan: Plan::origin says ("the megatron baseline")
        Undecided,  ///< a tactic step's partial plan: no tactic decided this axis yet (it replicates)
        Tactic,     ///< tactic `tactic` decided it; `via` is the tensor it fixed, if any
        Propagated, ///< propagated from op `from` through tensor `via`; `tactic` made the root decision
        Hand,       ///< set by hand in the window
        Locked,     ///< a search kept it from a lock set by hand
        Pinned,     ///< a search kept it from a pin (an earlier tactic)
        Note,       ///< read from a plan file, which says why in `note`
    };
    Source source = Source::Origin;
    int tactic = -1; ///< index into the plan's tactics
    OpId from;
    TensorId via;
    std::string note;

    bool operator==(const Provenance&) const = default;
};

/// Why op `op` splits factor `factor` (-1: nothing) over the axis named `axis`, in words naming ops,
/// tensors and tactics; `origin` stands for Source::Origin.
std::string describeProvenance(const Provenance& why, const Graph& graph, OpId op, int factor, const std::string& axis,
                               const std::vector<Tactic>& tactics, const std::string& origin);

} // namespace shardscope
