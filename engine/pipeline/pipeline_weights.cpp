#include "engine/pipeline/pipeline_weights.h"

#include "engine/pipeline/pipeline_cost.h"

namespace shardscope {

PipelineWeights pipelineWeights(const Mesh& mesh, const StepSettings& settings) {
    const int P = mesh.pipelineStages();
    if (P < 2)
        return {};
    const double m = settings.microbatches;
    const double V = settings.schedule == Schedule::Interleaved ? settings.virtualStages : 1;
    PipelineWeights w;
    w.time = (m + (P - 1) / V) / (m * P);
    w.stepTime = 1.0 / P;
    w.staticMemory = 1.0 / P;
    w.activations = activationsInFlight(settings, P, 0) / P;
    return w;
}

} // namespace shardscope
