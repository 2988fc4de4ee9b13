#include "engine/builders/graph_builder.h"

#include <utility>

namespace shardscope {

GraphBuilder::GraphBuilder(std::string name, DType dtype) : dtype_(dtype) { graph_.name = std::move(name); }

TensorId GraphBuilder::input(const std::string& name, std::vector<std::int64_t> shape, DType dtype) {
    producer_.emplace_back();
    return graph_.addTensor(Tensor{name, std::move(shape), dtype, TensorRole::Input, {}, {}});
}

TensorId GraphBuilder::param(const std::string& name, std::vector<std::int64_t> shape) {
    producer_.emplace_back();
    return graph_.addTensor(Tensor{name, std::move(shape), dtype_, TensorRole::Parameter, {}, {}});
}

TensorId GraphBuilder::op(const std::string& name, OpKind kind, const std::string& rule, std::vector<TensorId> inputs,
                          std::vector<std::int64_t> outShape, const std::string& block, OpHints hints) {
    const TensorId out =
        graph_.addTensor(Tensor{name + ".out", std::move(outShape), dtype_, TensorRole::Activation, {}, {}});
    Op op;
    op.name = name;
    op.kind = kind;
    op.inputs = std::move(inputs);
    op.outputs = {out};
    op.block = block;
    op.rule = ShardingRule::parse(rule);
    op.hints = std::move(hints);
    producer_.push_back(graph_.addOp(std::move(op)));
    return out;
}

Op& GraphBuilder::producerOf(TensorId t) { return graph_.mutableOp(producer_[t.index()]); }

const std::vector<std::int64_t>& GraphBuilder::shape(TensorId t) const { return graph_.tensor(t).shape; }

Graph GraphBuilder::finish() {
    graph_.finalize();
    return std::move(graph_);
}

} // namespace shardscope
