#include "engine/search/settings_space.h"

namespace shardscope {

StepSettings SettingsSpace::at(int zeroStage, Recompute recompute, int micro, AxisSet zeroAxes) const {
    StepSettings s = base;
    s.zeroStage = zeroStage;
    s.zeroAxes = zeroStage > 0 ? zeroAxes : 0;
    s.recompute = recompute;
    s.microbatches = micro;
    return s;
}

SettingsSpace settingsSpace(const StepSettings& fixed, const OpenSettings& open, std::optional<int> globalBatch,
                            int dataDegree) {
    SettingsSpace space;
    space.base = fixed;
    space.zeroStages = open.zeroStage ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{fixed.zeroStage};
    space.recomputes = open.recompute ? std::vector<Recompute>{Recompute::None, Recompute::Selective, Recompute::Full}
                                      : std::vector<Recompute>{fixed.recompute};
    if (open.microbatches && globalBatch && *globalBatch > 0 && dataDegree > 0)
        for (int m = 1; m <= *globalBatch; ++m)
            if (*globalBatch % m == 0 && (*globalBatch / m) % dataDegree == 0)
                space.microbatches.push_back(m);
    if (space.microbatches.empty())
        space.microbatches = {fixed.microbatches};
    return space;
}

bool slowerOrEqual(const StepSettings& a, const StepSettings& b) {
    return a.zeroStage == b.zeroStage && a.zeroAxes == b.zeroAxes && a.optimizer == b.optimizer &&
           int(a.recompute) <= int(b.recompute) && b.microbatches % a.microbatches == 0;
}

} // namespace shardscope
