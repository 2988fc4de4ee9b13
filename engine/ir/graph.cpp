#include "engine/ir/graph.h"

#include "engine/util/enum_names.h"
#include "engine/util/error.h"

#include <algorithm>
#include <deque>
#include <utility>

namespace shardscope {

namespace {
constexpr EnumNames<TensorRole, 4> kRoles{{{{TensorRole::Input, "input"},
                                            {TensorRole::Parameter, "parameter"},
                                            {TensorRole::Activation, "activation"},
                                            {TensorRole::Constant, "constant"}}}};
}

std::string_view tensorRoleName(TensorRole r) { return kRoles.name(r); }

std::optional<TensorRole> parseTensorRole(std::string_view name) { return kRoles.parse(name); }

TensorId Graph::addTensor(Tensor t) {
    tensors_.push_back(std::move(t));
    return TensorId(tensors_.size() - 1);
}

OpId Graph::addOp(Op op) {
    ops_.push_back(std::move(op));
    return OpId(ops_.size() - 1);
}

void Graph::finalize() {
    opByName_.clear();
    tensorByName_.clear();
    for (std::size_t t = 0; t < tensors_.size(); ++t) {
        Tensor& tensor = tensors_[t];
        tensor.producer = OpId();
        tensor.consumers.clear();
        if (tensor.name.empty())
            throw InputError("tensor " + std::to_string(t) + ": field 'name' is empty");
        if (!tensorByName_.emplace(tensor.name, TensorId(t)).second)
            throw InputError("tensor '" + tensor.name + "': name used twice");
        for (auto d : tensor.shape)
            if (d <= 0)
                throw InputError("tensor '" + tensor.name + "': field 'shape' has a non-positive size");
    }
    for (std::size_t o = 0; o < ops_.size(); ++o) {
        Op& op = ops_[o];
        const std::string where = "op '" + op.name + "'";
        if (op.name.empty())
            throw InputError("op " + std::to_string(o) + ": field 'name' is empty");
        if (!opByName_.emplace(op.name, OpId(o)).second)
            throw InputError(where + ": name used twice");
        if (op.outputs.empty())
            throw InputError(where + ": field 'outputs' is empty");
        std::vector<std::vector<std::int64_t>> inShapes, outShapes;
        for (TensorId t : op.inputs) {
            if (!t.valid() || t.index() >= tensors_.size())
                throw InputError(where + ": field 'inputs' names an unknown tensor");
            inShapes.push_back(tensors_[t.index()].shape);
            tensors_[t.index()].consumers.push_back(OpId(o));
        }
        for (TensorId t : op.outputs) {
            if (!t.valid() || t.index() >= tensors_.size())
                throw InputError(where + ": field 'outputs' names an unknown tensor");
            Tensor& out = tensors_[t.index()];
            if (out.producer.valid())
                throw InputError(where + ": output '" + out.name + "' is already produced by op '" +
                                 ops_[out.producer.index()].name + "'");
            if (out.role != TensorRole::Activation)
                throw InputError(where + ": output '" + out.name + "' has role '" +
                                 std::string(tensorRoleName(out.role)) + "'; op outputs must be activations");
            out.producer = OpId(o);
            outShapes.push_back(out.shape);
        }
        if (auto e = op.rule.bindShapes(inShapes, outShapes); !e.empty())
            throw InputError(where + ": field 'rule': " + e);
        auto checkHint = [&](const std::string& hint, const char* field) {
            if (!hint.empty() && op.rule.findFactor(hint) < 0)
                throw InputError(where + ": field 'hints." + field + "' names factor '" + hint +
                                 "' which the rule does not have");
        };
        checkHint(op.hints.batch, "batch");
        checkHint(op.hints.tensor, "tensor");
        checkHint(op.hints.sequence, "sequence");
        checkHint(op.hints.expert, "expert");
        if (op.window < 0)
            throw InputError(where + ": field 'window' is negative");
        if (op.window > 0 && !(op.attentionCore && op.rule.findFactor("t") >= 0))
            throw InputError(where + ": field 'window' needs an attention-core op whose keys are factor 't'");
    }
    for (const Tensor& t : tensors_)
        if (t.role == TensorRole::Activation && !t.producer.valid())
            throw InputError("tensor '" + t.name + "': activation with no producing op");

    // Kahn's algorithm, taking ops in file order among the ready ones so the order is stable.
    std::vector<int> pending(ops_.size(), 0);
    for (std::size_t o = 0; o < ops_.size(); ++o)
        for (TensorId t : ops_[o].inputs)
            if (tensors_[t.index()].producer.valid())
                ++pending[o];
    std::deque<std::size_t> ready;
    for (std::size_t o = 0; o < ops_.size(); ++o)
        if (pending[o] == 0)
            ready.push_back(o);
    order_.clear();
    while (!ready.empty()) {
        const std::size_t o = ready.front();
        ready.pop_front();
        order_.push_back(OpId(o));
        for (TensorId t : ops_[o].outputs)
            for (OpId c : tensors_[t.index()].consumers)
                for (TensorId in : ops_[c.index()].inputs)
                    if (in == t && --pending[c.index()] == 0)
                        ready.push_back(c.index());
    }
    if (order_.size() != ops_.size()) {
        for (std::size_t o = 0; o < ops_.size(); ++o)
            if (pending[o] > 0)
                throw InputError("op '" + ops_[o].name + "': part of a cycle in the graph");
    }
    topoPosition_.assign(ops_.size(), 0);
    for (std::size_t i = 0; i < order_.size(); ++i)
        topoPosition_[order_[i].index()] = static_cast<int>(i);
}

std::optional<OpId> Graph::findOp(const std::string& n) const {
    auto it = opByName_.find(n);
    if (it == opByName_.end())
        return std::nullopt;
    return it->second;
}

std::optional<TensorId> Graph::findTensor(const std::string& n) const {
    auto it = tensorByName_.find(n);
    if (it == tensorByName_.end())
        return std::nullopt;
    return it->second;
}

double Graph::parameterCount() const {
    double n = 0;
    for (const Tensor& t : tensors_)
        if (t.role == TensorRole::Parameter)
            n += t.elements();
    return n;
}

double Op::attendedShare() const {
    const int keys = window > 0 ? rule.findFactor("t") : -1;
    if (keys >= 0 && window < rule.factors[std::size_t(keys)].size) {
        // Query i sees min(i + 1, W) keys: W t - W (W - 1) / 2 products of t x t.
        const double w = double(window), t = double(rule.factors[std::size_t(keys)].size);
        return (w * t - w * (w - 1) / 2) / (t * t);
    }
    return causal ? 0.5 : 1.0;
}

double Graph::forwardFlops(OpId o) const {
    const Op& op = ops_[o.index()];
    if (op.flops)
        return *op.flops;
    const OpKindTraits& traits = opKindTraits(op.kind);
    if (traits.category == OpCategory::Contraction)
        return 2.0 * op.rule.iterationSpace();
    double outElements = 0;
    for (TensorId t : op.outputs)
        outElements += tensors_[t.index()].elements();
    if (traits.category == OpCategory::Loss || op.kind == OpKind::Pool || op.kind == OpKind::Combine) {
        // These reduce their input: count per input element.
        double inElements = 0;
        for (TensorId t : op.inputs)
            if (tensors_[t.index()].role != TensorRole::Parameter)
                inElements = std::max(inElements, tensors_[t.index()].elements());
        return traits.flopsPerElement * inElements;
    }
    return traits.flopsPerElement * outElements;
}

bool Graph::hasRoutedExperts() const {
    return std::any_of(ops_.begin(), ops_.end(), [](const Op& op) { return !op.hints.expert.empty(); });
}

OpId Graph::parameterOwner(TensorId t) const {
    const Tensor& tensor = tensors_[t.index()];
    OpId best;
    for (OpId c : tensor.consumers)
        if (!best.valid() || topoPosition_[c.index()] < topoPosition_[best.index()])
            best = c;
    return best;
}

} // namespace shardscope
