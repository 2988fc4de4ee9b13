#include "engine/io/evaluation_json.h"

namespace shardscope {

using nlohmann::json;

json evaluationToJson(const Evaluation& e, const Graph& graph, std::optional<double> simulatedStep) {
    json mesh = json::object();
    for (const MeshAxis& a : e.mesh.axes)
        mesh[a.name] = a.size;
    json perOp = json::array();
    for (const OpReport& r : e.perOp) {
        const Op& op = graph.op(r.op);
        json collectives = json::array();
        for (const CollectiveCost& c : r.collectives)
            collectives.push_back({{"kind", std::string(collectiveName(c.kind))},
                                   {"axes", e.mesh.setName(c.axes)},
                                   {"bytes", c.bytes},
                                   {"count", c.count},
                                   {"time_s", c.totalTime()},
                                   {"phase", std::string(phaseName(c.phase))},
                                   {"purpose", std::string(purposeName(c.purpose))},
                                   {"tensor", graph.tensor(c.tensor).name}});
        perOp.push_back({{"name", op.name},
                         {"kind", std::string(opKindName(op.kind))},
                         {"block", op.block},
                         {"strategy", r.strategy},
                         {"compute_s", r.computeTime},
                         {"comm_s", r.commTime},
                         {"optimizer_s", r.optimizerTime},
                         {"collectives", collectives},
                         {"memory_bytes", r.memory.sum()}});
    }
    json out{{"model", graph.name},
             {"strategy", e.planName},
             {"devices", e.devices},
             {"mesh", mesh},
             {"params_total", e.paramsTotal},
             {"flops_per_step", e.flopsPerStep},
             {"step_time_s", simulatedStep ? *simulatedStep : e.stepTime},
             {"simulated_step_time_s", simulatedStep ? json(*simulatedStep) : json(nullptr)},
             {"analytic_step_time_s", e.stepTime},
             {"compute_time_s", e.computeTime},
             {"slowdown_time_s", e.slowdownTime},
             {"comm_time_s", e.commTime},
             {"exposed_comm_time_s", e.exposedCommTime},
             {"optimizer_time_s", e.optimizerTime},
             {"peak_memory_bytes", e.peakMemory},
             {"memory_capacity_bytes", e.memoryCapacity},
             {"memory_breakdown",
              {{"parameters", e.memory.parameters},
               {"gradients", e.memory.gradients},
               {"optimizer", e.memory.optimizer},
               {"activations", e.memory.activations},
               {"buffers", e.buffers}}},
             {"feasible", e.feasible},
             {"comm_bytes_per_device", e.commBytesPerDevice},
             {"per_op", perOp}};
    if (!e.feasible)
        out["overflow"] = e.overflow;
    if (e.pipeline.active()) {
        json stages = json::array();
        for (const StageReport& s : e.pipeline.stages)
            stages.push_back({{"stage", s.stage},
                              {"chunks", s.chunks},
                              {"ops", s.ops},
                              {"forward_s", s.forward},
                              {"backward_s", s.backward},
                              {"comm_s", s.comm},
                              {"transfer_s", s.transfer},
                              {"transfer_bytes", s.transferBytes},
                              {"per_microbatch_s", s.perMicrobatch()},
                              {"step_work_s", s.stepWork},
                              {"in_flight", s.inFlight},
                              {"peak_memory_bytes", s.peakMemory},
                              {"feasible", s.feasible}});
        out["bubble_time_s"] = e.bubbleTime;
        out["pipeline"] = {{"stages", stages},
                           {"schedule", std::string(scheduleName(e.pipeline.schedule))},
                           {"virtual_stages", e.pipeline.virtualStages},
                           {"microbatches", e.pipeline.microbatches},
                           {"slowest_stage", e.pipeline.slowest},
                           {"bubble_fraction", e.pipeline.bubbleFraction},
                           {"balanced", e.pipeline.balanced}};
    }
    return out;
}

} // namespace shardscope
