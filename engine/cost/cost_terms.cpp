#include "engine/cost/cost_terms.h"

#include "engine/util/enum_names.h"

namespace shardscope {

namespace {
constexpr EnumNames<Phase, 3> kPhases{{{{Phase::Forward, "forward"}, {Phase::Backward, "backward"}, {Phase::Step, "step"}}}};
constexpr EnumNames<CommPurpose, 5> kPurposes{{{{CommPurpose::Resharding, "resharding"},
                                                {CommPurpose::Statistics, "statistics"},
                                                {CommPurpose::Halo, "halo"},
                                                {CommPurpose::GradientSync, "gradient-sync"},
                                                {CommPurpose::ParameterGather, "parameter-gather"}}}};
} // namespace

std::string_view phaseName(Phase p) { return kPhases.name(p); }

std::string_view purposeName(CommPurpose p) { return kPurposes.name(p); }

double OpCost::commTime() const {
    double t = 0;
    for (const CollectiveCost& c : collectives)
        t += c.totalTime();
    return t;
}

double EdgeCost::time() const {
    double t = 0;
    for (const CollectiveCost& c : collectives)
        t += c.totalTime();
    return t;
}

} // namespace shardscope
