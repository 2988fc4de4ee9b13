#include "engine/onnx/onnx_import.h"

#include "engine/onnx/onnx_fusion.h"
#include "engine/onnx/onnx_ops.h"
#include "engine/onnx/onnx_reader.h"
#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <filesystem>
#include <map>
#include <set>

namespace shardscope {

namespace {

using namespace onnx_import;

/// "/blocks.0/norm1/LayerNormalization" -> "blocks.0.norm1": the module path of a node.
std::string blockOf(const std::string& name) {
    std::string path = name;
    while (!path.empty() && path.front() == '/')
        path.erase(path.begin());
    const std::size_t slash = path.rfind('/');
    path = slash == std::string::npos ? std::string() : path.substr(0, slash);
    for (char& ch : path)
        if (ch == '/')
            ch = '.';
    return path;
}

/// Parses "--set" pairs into dimension bindings and a float dtype.
std::pair<DimBindings, std::optional<DType>> parseSets(const std::string& path, const std::vector<std::string>& sets,
                                                       std::optional<int> batch) {
    DimBindings bindings;
    std::optional<DType> dtype;
    for (const std::string& s : sets) {
        const std::size_t eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
            throw InputError("--set '" + s.substr(0, 80) + "': expected NAME=VALUE");
        const std::string key = s.substr(0, eq), value = s.substr(eq + 1);
        if (key == "dtype") {
            dtype = parseDType(value);
            if (!dtype)
                throw InputError("--set dtype=" + value.substr(0, 40) + ": unknown dtype (bf16, fp16, fp32)");
            continue;
        }
        if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos ||
            std::stoll(value) < 1)
            throw InputError(path + ": --set " + key.substr(0, 40) + "=" + value.substr(0, 40) +
                             ": a symbolic dimension takes a positive integer");
        bindings[key] = std::stoll(value);
    }
    if (batch)
        bindings["batch"] = *batch;
    return {bindings, dtype};
}

/// Marks MatMul -> [scale, mask] -> Softmax [-> Dropout] -> MatMul on activations as attention.
void markAttention(Graph& g) {
    auto producer = [&](TensorId t) -> std::optional<OpId> {
        const OpId p = g.tensor(t).producer;
        return p.valid() ? std::optional<OpId>(p) : std::nullopt;
    };
    auto activationInputs = [&](const Op& op) {
        std::vector<TensorId> out;
        for (TensorId t : op.inputs)
            if (g.tensor(t).role == TensorRole::Activation)
                out.push_back(t);
        return out;
    };
    for (std::size_t o = 0; o < g.ops().size(); ++o) {
        if (g.ops()[o].kind != OpKind::Softmax)
            continue;
        std::vector<OpId> core{OpId(o)};
        // Back through the scale and mask (one activation input each) to the scores' MatMul.
        std::optional<OpId> scores;
        for (std::optional<OpId> p = producer(g.ops()[o].inputs.front()); p;) {
            const Op& op = g.op(*p);
            if (op.kind == OpKind::MatMul) {
                if (activationInputs(op).size() == 2)
                    scores = p;
                break;
            }
            if ((op.kind != OpKind::Mul && op.kind != OpKind::Add) || activationInputs(op).size() != 1)
                break;
            core.push_back(*p);
            p = producer(op.inputs.front());
        }
        // Forward through dropout to the context's MatMul.
        std::optional<OpId> context;
        for (TensorId t = g.ops()[o].outputs.front();;) {
            const auto& readers = g.tensor(t).consumers;
            if (readers.size() != 1)
                break;
            const Op& op = g.op(readers.front());
            if (op.kind == OpKind::MatMul && activationInputs(op).size() == 2) {
                context = readers.front();
                break;
            }
            if (op.kind != OpKind::Dropout)
                break;
            core.push_back(readers.front());
            t = op.outputs.front();
        }
        if (!scores || !context)
            continue;
        core.push_back(*scores);
        core.push_back(*context);
        for (OpId c : core)
            g.mutableOp(c).attentionCore = true;
    }
}

/// The batch factor of each op: the factor at the batch dimension of an input that has one, followed
/// from the model's inputs (their first dimension) through every op's rule.
void markBatch(Graph& g, const std::set<std::string>& inputs) {
    std::map<std::size_t, std::size_t> batchDim; // tensor -> dimension carrying the batch
    for (std::size_t t = 0; t < g.tensors().size(); ++t)
        if (inputs.count(g.tensors()[t].name) && !g.tensors()[t].shape.empty())
            batchDim[t] = 0;
    for (OpId o : g.topoOrder()) {
        Op& op = g.mutableOp(o);
        int factor = -1;
        for (std::size_t k = 0; k < op.inputs.size() && factor < 0; ++k) {
            const auto b = batchDim.find(op.inputs[k].index());
            if (b != batchDim.end() && b->second < op.rule.inputs[k].size() && !op.rule.inputs[k][b->second].empty())
                factor = op.rule.inputs[k][b->second].front();
        }
        if (factor < 0 || op.rule.factors[std::size_t(factor)].type == FactorType::Fixed)
            continue;
        for (std::size_t k = 0; k < op.outputs.size(); ++k)
            for (std::size_t d = 0; d < op.rule.outputs[k].size(); ++d)
                if (!op.rule.outputs[k][d].empty() && op.rule.outputs[k][d].front() == factor)
                    batchDim[op.outputs[k].index()] = d;
        if (op.rule.inOutput(factor))
            op.hints.batch = op.rule.factors[std::size_t(factor)].name;
    }
}

} // namespace

OnnxImport importOnnx(const std::string& path, const std::vector<std::string>& sets, std::optional<int> batch,
                      int microbatches) {
    auto [bindings, dtype] = parseSets(path, sets, batch);
    if (microbatches > 1) {
        const auto b = bindings.find("batch");
        if (b == bindings.end())
            throw InputError(path + ": --microbatches " + std::to_string(microbatches) +
                             " needs the global batch as --set batch=B (the first input's first dimension)");
        if (b->second % microbatches != 0)
            throw InputError(path + ": --microbatches " + std::to_string(microbatches) + " does not divide batch " +
                             std::to_string(b->second));
        b->second /= microbatches;
    }
    OnnxGraph og = readOnnx(path, bindings);
    OnnxImport result;
    result.nodes = int(og.nodes.size()) + og.foldedNodes;
    result.folded = og.foldedNodes;
    result.fused = fusePatterns(og);
    if (std::int64_t(og.nodes.size()) > kMaxOps)
        throw InputError(path + ": " + std::to_string(og.nodes.size()) + " ops after folding: more than the limit of " +
                         withSeparators(kMaxOps));
    const DType floatType = dtype.value_or(DType::BF16);

    Graph g;
    g.name = std::filesystem::path(path).stem().string();
    std::map<std::string, TensorId> tensors;
    std::set<std::string> inputs(og.inputs.begin(), og.inputs.end()), opNames;
    auto tensorOf = [&](const std::string& name) {
        if (const auto t = tensors.find(name); t != tensors.end())
            return t->second;
        const OnnxValue& v = og.value(name);
        Tensor t;
        t.name = name;
        t.shape = v.shape;
        t.dtype = v.floating ? floatType : v.dtype;
        t.role = v.kind == ValueKind::Parameter ? TensorRole::Parameter
                 : inputs.count(name)           ? TensorRole::Input
                                                : TensorRole::Activation;
        return tensors[name] = g.addTensor(std::move(t));
    };
    for (const OnnxNode& node : og.nodes) {
        MappedOp m = mapNode(node, og);
        if (m.kind == OpKind::Opaque)
            result.opaque.emplace_back(node.name, node.opType);
        Op op;
        // "/blocks.0/qkv/MatMul" reads as "blocks.0/qkv/MatMul" (unless that name is taken too).
        op.name = node.name;
        while (op.name.size() > 1 && op.name.front() == '/')
            op.name.erase(op.name.begin());
        if (!opNames.insert(op.name).second) {
            op.name = node.name;
            opNames.insert(op.name);
        }
        op.kind = m.kind;
        op.rule = std::move(m.rule);
        op.flops = m.flops;
        op.block = blockOf(node.name);
        for (const std::string& in : m.inputs)
            op.inputs.push_back(tensorOf(in));
        for (const std::string& o : m.outputs)
            op.outputs.push_back(tensorOf(o));
        g.addOp(std::move(op));
    }
    try {
        g.finalize();
    } catch (const InputError& e) {
        throw InputError(path + ": " + e.what());
    }
    markAttention(g);
    markBatch(g, inputs);
    result.graph = std::move(g);
    return result;
}

} // namespace shardscope
