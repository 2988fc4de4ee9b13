#include "commands.h"

#include "engine/io/json_fields.h"
#include "engine/io/model_file.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/onnx/onnx_import.h"
#include "engine/util/error.h"
#include "engine/util/units.h"

#include <nlohmann/json.hpp>

namespace shardscope::cli {

int runImport(const CliOptions& options, std::ostream& out) {
    const ModelRequest& m = options.scenario.model;
    if (m.spec.size() < 5 || m.spec.substr(m.spec.size() - 5) != ".onnx")
        throw InputError("import: " + m.spec.substr(0, 80) + " is not an .onnx file");
    const OnnxImport imported = importOnnx(m.spec, m.sets, m.batch, 1);
    const Graph& g = imported.graph;
    const auto blocks = findRepeatedBlocks(g);
    int attention = 0;
    for (const Op& op : g.ops())
        attention += op.kind == OpKind::Softmax && op.attentionCore;
    if (!options.out.empty())
        writeFileAtomically(options.out, modelToJson(g));
    if (options.json) {
        nlohmann::ordered_json j{{"model", g.name},
                                 {"nodes", imported.nodes},
                                 {"ops", g.ops().size()},
                                 {"folded", imported.folded},
                                 {"fused", imported.fused},
                                 {"parameters", g.parameterCount()},
                                 {"attention", attention},
                                 {"repeated_blocks", blocks ? blocks->count() : 0},
                                 {"ops_per_block", blocks ? blocks->period() : 0}};
        nlohmann::ordered_json opaque = nlohmann::ordered_json::array();
        for (const auto& [node, type] : imported.opaque)
            opaque.push_back({{"node", node}, {"op_type", type}});
        j["opaque"] = opaque;
        out << j.dump(1) << "\n";
        return 0;
    }
    out << "imported   " << m.spec << ": " << imported.nodes << " nodes -> " << g.ops().size() << " ops ("
        << imported.folded << " constant and shape nodes folded, " << imported.fused << " fused), "
        << formatCount(g.parameterCount()) << " parameters\n";
    out << "repeated   "
        << (blocks ? std::to_string(blocks->count()) + " blocks of " + std::to_string(blocks->period()) + " ops (folded by the search)"
                   : std::string("none"))
        << "\n";
    out << "attention  " << attention << " (MatMul -> Softmax -> MatMul)\n";
    if (imported.opaque.empty())
        out << "opaque     none\n";
    else {
        out << "opaque     " << imported.opaque.size() << " ops kept whole (replicated, priced by their bytes):\n";
        for (const auto& [node, type] : imported.opaque)
            out << "             " << node << " (" << type << ")\n";
    }
    if (!options.out.empty())
        out << "wrote      " << options.out << "\n";
    return 0;
}

} // namespace shardscope::cli
