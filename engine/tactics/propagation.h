#pragma once
// Propagation of tactic decisions through the sharding rules (docs/DESIGN.md, Tactics). A decision "op o
// splits factor f over axis a" splits every operand dimension whose major factor is f; each
// neighbour reading or writing that tensor then splits the factor it maps to that dimension — forward
// to consumers, backward to producers, through layout ops (a split of h reaches the heads factor n of
// a reshape `[b,s,(n,d)] -> [b,s,n,d]`). A neighbour is only ever decided once: a decided op stops
// the spread. When two decisions of the same tactic, or a tactic's own decision and an earlier one,
// disagree, the earlier stands and a conflict naming both sources is reported.

#include "engine/tactics/partial_plan.h"

#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace shardscope {

/// Makes one tactic's decisions and spreads them.
class Propagator {
public:
    /// Decisions of tactic number `tactic` (of `tactics`) into `plan`; conflicts and notes are appended.
    /// With `enters`, the spread only reaches ops it accepts (a tactic's own decisions always land).
    Propagator(const Graph& graph, PartialPlan& plan, const std::vector<Tactic>& tactics, int tactic,
               std::vector<std::string>& conflicts, std::vector<std::string>& notes,
               std::function<bool(const Op&)> enters = {});

    /// The tactic decides that op `o` splits `factor` over `axis`; spreads it. False (with a note) if the
    /// split is not valid for the op, or conflicts with an earlier decision.
    bool decideOp(OpId o, AxisId axis, int factor);
    /// The tactic splits dimension `dim` of tensor `t` over `axis`: the tensor's producer and consumers
    /// split the factors they map to it; spreads from them. False (with a note) when no op could.
    bool splitTensor(TensorId t, int dim, AxisId axis);

private:
    bool propose(OpId o, AxisId axis, int factor, const Provenance& why, bool direct);
    void spread();
    void spreadTensor(TensorId t, int dim, AxisId axis, OpId from, int skipSlot, bool fromIsConsumer);
    std::string decisionText(OpId o, AxisId axis, int factor) const;

    const Graph& graph_;
    PartialPlan& plan_;
    const std::vector<Tactic>& tactics_;
    int tactic_;
    std::vector<std::string>& conflicts_;
    std::vector<std::string>& notes_;
    std::function<bool(const Op&)> enters_;
    std::deque<std::pair<OpId, AxisId>> queue_;
};

} // namespace shardscope
