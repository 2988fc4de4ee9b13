// A stack of linear + ReLU layers, the smallest model that shows column-then-row tensor parallelism.

#include "engine/builders/builders.h"
#include "engine/builders/graph_builder.h"

namespace shardscope {

Graph buildMlp(const ModelParams& p, int microBatch, const std::string& name) {
    const std::int64_t b = microBatch;
    GraphBuilder gb(name, p.dtype);
    TensorId x = gb.input("x", {b, p.hidden}, p.dtype);
    std::int64_t width = p.hidden;
    for (int i = 0; i < p.layers; ++i) {
        const std::string l = "layers." + std::to_string(i);
        const std::int64_t out = (i % 2 == 0 && p.layers > 1) ? p.ffnSize() : p.hidden;
        // Megatron pairs: even layers split their output (column), odd layers their input (row).
        const char* tensor = (i % 2 == 0) ? "o" : "i";
        const TensorId w = gb.param(l + ".weight", {width, out});
        x = gb.op(l + ".fc", OpKind::MatMul, "([b,i],[i,o])->([b,o])", {x, w}, {b, out}, l, OpHints{"b", tensor, "", ""});
        x = gb.op(l + ".relu", OpKind::Relu, "([b,o])->([b,o])", {x}, {b, out}, l,
                  OpHints{"b", i % 2 == 0 ? "o" : "", "", ""});
        width = out;
    }
    const TensorId target = gb.input("target", {b, width}, p.dtype);
    gb.op("loss", OpKind::MseLoss, "([b,o],[b,o])->([b]) {o:local}", {x, target}, {b}, "head", OpHints{"b", "", "", ""});
    return gb.finish();
}

} // namespace shardscope
