#include "engine/sharding/strategy.h"

namespace shardscope {

AxisSet OpStrategy::axesOn(int f) const {
    AxisSet set = 0;
    for (std::size_t a = 0; a < factorOfAxis.size(); ++a)
        if (factorOfAxis[a] == f)
            set |= AxisSet(1) << a;
    return set;
}

AxisSet OpStrategy::usedAxes() const {
    AxisSet set = 0;
    for (std::size_t a = 0; a < factorOfAxis.size(); ++a)
        if (factorOfAxis[a] >= 0)
            set |= AxisSet(1) << a;
    return set;
}

std::string OpStrategy::toString(const ShardingRule& rule, const Mesh& mesh) const {
    std::string s;
    for (std::size_t a = 0; a < factorOfAxis.size() && a < mesh.rank(); ++a) {
        if (factorOfAxis[a] < 0)
            continue;
        s += (s.empty() ? "" : " ") + mesh.axes[a].name + ":" +
             rule.factors[static_cast<std::size_t>(factorOfAxis[a])].name;
    }
    return s.empty() ? "replicated" : s;
}

AxisSet TensorSharding::splitAxes() const {
    AxisSet set = 0;
    for (AxisSet d : dims)
        set |= d;
    return set;
}

std::string TensorSharding::toString(const Mesh& mesh) const {
    std::string s = "[";
    for (std::size_t d = 0; d < dims.size(); ++d)
        s += (d ? "," : "") + (dims[d] ? mesh.setName(dims[d]) : std::string("-"));
    s += "]";
    if (partial)
        s += " partial{" + mesh.setName(partial) + "}";
    return s;
}

std::string verifyStrategy(const Op& op, const Mesh& mesh, const OpStrategy& s) {
    if (s.factorOfAxis.size() != mesh.rank())
        return "strategy has " + std::to_string(s.factorOfAxis.size()) + " axes but the mesh has " +
               std::to_string(mesh.rank());
    const ShardingRule& rule = op.rule;
    for (std::size_t a = 0; a < mesh.rank(); ++a) {
        const int f = s.factorOfAxis[a];
        if (f < -1 || f >= static_cast<int>(rule.factors.size()))
            return "axis '" + mesh.axes[a].name + "' names no factor of the rule";
        if (f >= 0 && !rule.splittable(f))
            return "factor '" + rule.factors[static_cast<std::size_t>(f)].name + "' of op '" + op.name +
                   "' cannot be split";
        if (f >= 0 && mesh.axes[a].role() == AxisRole::Pipe)
            return "the pipe axis holds pipeline stages; no factor splits over it";
    }
    for (std::size_t f = 0; f < rule.factors.size(); ++f) {
        const int parts = mesh.groupSize(s.axesOn(static_cast<int>(f)));
        if (rule.factors[f].size % parts != 0)
            return "factor '" + rule.factors[f].name + "' of op '" + op.name + "' has size " +
                   std::to_string(rule.factors[f].size) + ", not divisible by " + std::to_string(parts) + " (" +
                   mesh.setName(s.axesOn(static_cast<int>(f))) + ")";
    }
    return {};
}

std::vector<OpStrategy> enumerateStrategies(const Op& op, const Mesh& mesh) {
    std::vector<int> candidates{-1};
    for (std::size_t f = 0; f < op.rule.factors.size(); ++f)
        if (op.rule.splittable(static_cast<int>(f)))
            candidates.push_back(static_cast<int>(f));
    // The pipe axis splits nothing: its only candidate is "no factor".
    auto choices = [&](std::size_t a) { return mesh.axes[a].role() == AxisRole::Pipe ? std::size_t(1) : candidates.size(); };
    std::vector<OpStrategy> result;
    OpStrategy current = OpStrategy::replicated(mesh.rank());
    std::vector<std::size_t> digit(mesh.rank(), 0);
    for (;;) {
        for (std::size_t a = 0; a < mesh.rank(); ++a)
            current.factorOfAxis[a] = candidates[digit[a]];
        if (verifyStrategy(op, mesh, current).empty())
            result.push_back(current);
        std::size_t a = 0;
        while (a < mesh.rank() && ++digit[a] == choices(a))
            digit[a++] = 0;
        if (a == mesh.rank())
            break;
    }
    return result;
}

namespace {

TensorSharding operandSharding(const ShardingRule& rule, const OperandFactors& operand, const OpStrategy& s) {
    (void)rule;
    TensorSharding t;
    t.dims.reserve(operand.size());
    for (const DimFactors& dim : operand)
        t.dims.push_back(dim.empty() ? 0 : s.axesOn(dim.front()));
    return t;
}

AxisSet axesOnFactorsAbsentFrom(const ShardingRule& rule, const OperandFactors& operand, const OpStrategy& s,
                                bool onlyReducing) {
    // The axes of a strategy split at most one factor each: walk the axes, not the factors.
    AxisSet set = 0;
    for (std::size_t a = 0; a < s.factorOfAxis.size(); ++a) {
        const int f = s.factorOfAxis[a];
        if (f < 0)
            continue;
        bool present = false;
        for (const DimFactors& dim : operand)
            for (int g : dim)
                present = present || g == f;
        if (present)
            continue;
        const FactorType type = rule.factors[std::size_t(f)].type;
        if (onlyReducing && type != FactorType::Reduction && type != FactorType::Gather)
            continue;
        set |= AxisSet(1) << a;
    }
    return set;
}

/// Axes splitting some dimension of `operand` under `s`, as splitAxes() of its sharding.
AxisSet operandSplitAxes(const OperandFactors& operand, const OpStrategy& s) {
    AxisSet set = 0;
    for (const DimFactors& dim : operand)
        if (!dim.empty())
            set |= s.axesOn(dim.front());
    return set;
}

} // namespace

TensorSharding inputSharding(const Op& op, std::size_t k, const OpStrategy& s) {
    return operandSharding(op.rule, op.rule.inputs[k], s);
}

TensorSharding outputSharding(const Op& op, std::size_t k, const OpStrategy& s) {
    TensorSharding t = operandSharding(op.rule, op.rule.outputs[k], s);
    t.partial = axesOnFactorsAbsentFrom(op.rule, op.rule.outputs[k], s, true);
    return t;
}

AxisSet inputSplitAxes(const Op& op, std::size_t k, const OpStrategy& s) {
    return operandSplitAxes(op.rule.inputs[k], s);
}

AxisSet outputSplitAxes(const Op& op, std::size_t k, const OpStrategy& s) {
    return operandSplitAxes(op.rule.outputs[k], s);
}

AxisSet inputGradientPartial(const Op& op, std::size_t k, const OpStrategy& s) {
    return axesOnFactorsAbsentFrom(op.rule, op.rule.inputs[k], s, false);
}

double localFraction(const TensorSharding& t, const Mesh& mesh) {
    return 1.0 / mesh.groupSize(t.splitAxes());
}

StrategyPin StrategyPin::of(const OpStrategy& s) {
    StrategyPin p;
    for (int f : s.factorOfAxis)
        p.factorOfAxis.emplace_back(f);
    return p;
}

bool StrategyPin::allows(const OpStrategy& s) const {
    for (std::size_t a = 0; a < factorOfAxis.size() && a < s.factorOfAxis.size(); ++a)
        if (factorOfAxis[a] && *factorOfAxis[a] != s.factorOfAxis[a])
            return false;
    return true;
}

bool StrategyPin::complete() const {
    for (const auto& f : factorOfAxis)
        if (!f)
            return false;
    return true;
}

} // namespace shardscope
