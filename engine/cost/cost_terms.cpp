#include "engine/cost/cost_terms.h"

namespace shardscope {

std::string_view phaseName(Phase p) {
    switch (p) {
    case Phase::Forward:
        return "forward";
    case Phase::Backward:
        return "backward";
    case Phase::Step:
        return "step";
    }
    return "?";
}

std::string_view purposeName(CommPurpose p) {
    switch (p) {
    case CommPurpose::Resharding:
        return "resharding";
    case CommPurpose::Statistics:
        return "statistics";
    case CommPurpose::Halo:
        return "halo";
    case CommPurpose::GradientSync:
        return "gradient-sync";
    case CommPurpose::ParameterGather:
        return "parameter-gather";
    }
    return "?";
}

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
