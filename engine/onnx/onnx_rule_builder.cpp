#include "engine/onnx/onnx_rule_builder.h"

#include <algorithm>

namespace shardscope::onnx_import {

int RuleBuilder::factor(const std::string& prefix, I size, FactorType type) {
    op_.rule.factors.push_back(Factor{prefix + std::to_string(counts_[prefix]++), size, type});
    return int(op_.rule.factors.size()) - 1;
}

bool RuleBuilder::used(int f) const {
    for (const OperandFactors& operand : op_.rule.inputs)
        for (const DimFactors& dim : operand)
            if (std::find(dim.begin(), dim.end(), f) != dim.end())
                return true;
    return false;
}

void RuleBuilder::input(const std::string& value, Dims dims) {
    const auto alias = g_.aliases.find(value);
    if (alias == g_.aliases.end()) {
        op_.inputs.push_back(value);
    } else {
        const auto& perm = alias->second.perm;
        if (!perm.empty()) {
            Dims source(dims.size());
            for (std::size_t j = 0; j < dims.size() && j < perm.size(); ++j)
                source[std::size_t(perm[j])] = dims[j];
            dims = std::move(source);
        }
        op_.inputs.push_back(alias->second.source);
    }
    op_.rule.inputs.push_back(std::move(dims));
}

void RuleBuilder::output(const std::string& value, Dims dims) {
    op_.outputs.push_back(value);
    op_.rule.outputs.push_back(std::move(dims));
}

I product(const std::vector<I>& shape) {
    I p = 1;
    for (I d : shape)
        p *= d;
    return p;
}

std::vector<int> outputFactors(RuleBuilder& rb, const std::vector<I>& shape) {
    std::vector<int> d;
    for (I s : shape)
        d.push_back(rb.factor("d", s, FactorType::Parallel));
    return d;
}

MappedOp RuleBuilder::finish(OpKind kind, std::optional<double> flops) {
    op_.kind = kind;
    op_.flops = flops;
    return std::move(op_);
}

} // namespace shardscope::onnx_import
