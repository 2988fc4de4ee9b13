#include "engine/cost/step_settings.h"

namespace shardscope {

std::string_view recomputeName(Recompute r) {
    switch (r) {
    case Recompute::None:
        return "none";
    case Recompute::Selective:
        return "selective";
    case Recompute::Full:
        return "full";
    }
    return "none";
}

std::optional<Recompute> parseRecompute(std::string_view name) {
    for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
        if (recomputeName(r) == name)
            return r;
    return std::nullopt;
}

std::string_view optimizerName(OptimizerKind o) { return o == OptimizerKind::Adam ? "adam" : "sgd"; }

std::optional<OptimizerKind> parseOptimizer(std::string_view name) {
    for (OptimizerKind o : {OptimizerKind::Adam, OptimizerKind::Sgd})
        if (optimizerName(o) == name)
            return o;
    return std::nullopt;
}

} // namespace shardscope
