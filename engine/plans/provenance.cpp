#include "engine/plans/provenance.h"

namespace shardscope {

std::string describeProvenance(const Provenance& why, const Graph& graph, OpId op, int factor, const std::string& axis,
                               const std::vector<Tactic>& tactics, const std::string& origin) {
    using Source = Provenance::Source;
    const auto tactic = [&] {
        return why.tactic >= 0 && std::size_t(why.tactic) < tactics.size()
                   ? "tactic " + std::to_string(why.tactic + 1) + " " + tactics[std::size_t(why.tactic)].toString()
                   : std::string("a tactic");
    };
    const std::string what = factor >= 0 ? graph.op(op).rule.factors[std::size_t(factor)].name + " split over " + axis
                                         : "nothing split over " + axis;
    switch (why.source) {
    case Source::Origin:
        return origin;
    case Source::Undecided:
        return "no tactic decided " + axis + ": replicated";
    case Source::Tactic:
        return what + ": " + tactic() + (why.via.valid() ? " fixed " + graph.tensor(why.via).name : std::string());
    case Source::Propagated:
        return what + ": propagated from " + graph.op(why.from).name + " through " + graph.tensor(why.via).name + " (" +
               tactic() + ")";
    case Source::Hand:
        return "set by hand";
    case Source::Locked:
        return "locked by hand";
    case Source::Pinned:
        return "fixed before the search";
    case Source::Note:
        return why.note;
    }
    return origin;
}

} // namespace shardscope
