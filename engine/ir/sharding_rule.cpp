#include "engine/ir/sharding_rule.h"

#include "engine/util/enum_names.h"
#include "engine/util/error.h"

#include <cctype>
#include <utility>

namespace shardscope {

namespace {

constexpr EnumNames<FactorType, 6> kTypeNames{{{
    {FactorType::Parallel, "parallel"},
    {FactorType::Reduction, "reduction"},
    {FactorType::LocalReduction, "local"},
    {FactorType::Halo, "halo"},
    {FactorType::Gather, "gather"},
    {FactorType::Fixed, "fixed"},
}}};

/// A small recursive-descent reader over the rule text.
class RuleReader {
public:
    explicit RuleReader(std::string_view text) : text_(text) {}

    ShardingRule read() {
        ShardingRule rule;
        rule.inputs = readOperandList(rule);
        skipSpace();
        expect("->");
        rule.outputs = readOperandList(rule);
        skipSpace();
        if (peek() == '{')
            readFactorSpecs(rule);
        skipSpace();
        if (pos_ != text_.size())
            fail("unexpected text after the rule");
        for (std::size_t f = 0; f < rule.factors.size(); ++f) {
            if (explicitType_.size() > f && explicitType_[f])
                continue;
            rule.factors[f].type =
                rule.inOutput(static_cast<int>(f)) ? FactorType::Parallel : FactorType::Reduction;
        }
        return rule;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw InputError("sharding rule '" + std::string(text_) + "': " + what + " at character " +
                         std::to_string(pos_ + 1));
    }
    void skipSpace() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
            ++pos_;
    }
    char peek() {
        skipSpace();
        return pos_ < text_.size() ? text_[pos_] : '\0';
    }
    void expect(std::string_view token) {
        skipSpace();
        if (text_.substr(pos_, token.size()) != token)
            fail("expected '" + std::string(token) + "'");
        pos_ += token.size();
    }
    std::string readName() {
        skipSpace();
        const std::size_t start = pos_;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' || text_[pos_] == '\''))
            ++pos_;
        if (start == pos_)
            fail("expected a factor name");
        return std::string(text_.substr(start, pos_ - start));
    }
    int factorIndex(ShardingRule& rule, const std::string& name) {
        int f = rule.findFactor(name);
        if (f < 0) {
            rule.factors.push_back(Factor{name, 0, FactorType::Parallel});
            f = static_cast<int>(rule.factors.size()) - 1;
        }
        return f;
    }
    DimFactors readDim(ShardingRule& rule) {
        DimFactors dim;
        if (peek() == '(') {
            expect("(");
            dim.push_back(factorIndex(rule, readName()));
            while (peek() == ',') {
                expect(",");
                dim.push_back(factorIndex(rule, readName()));
            }
            expect(")");
        } else {
            dim.push_back(factorIndex(rule, readName()));
        }
        return dim;
    }
    OperandFactors readOperand(ShardingRule& rule) {
        OperandFactors operand;
        expect("[");
        if (peek() != ']') {
            operand.push_back(readDim(rule));
            while (peek() == ',') {
                expect(",");
                operand.push_back(readDim(rule));
            }
        }
        expect("]");
        return operand;
    }
    std::vector<OperandFactors> readOperandList(ShardingRule& rule) {
        std::vector<OperandFactors> list;
        expect("(");
        if (peek() != ')') {
            list.push_back(readOperand(rule));
            while (peek() == ',') {
                expect(",");
                list.push_back(readOperand(rule));
            }
        }
        expect(")");
        return list;
    }
    void readFactorSpecs(ShardingRule& rule) {
        expect("{");
        explicitType_.assign(rule.factors.size(), false);
        if (peek() == '}') {
            expect("}");
            return;
        }
        for (;;) {
            const std::string name = readName();
            const int f = rule.findFactor(name);
            if (f < 0)
                fail("factor '" + name + "' is not used by any operand");
            if (peek() == '=') {
                expect("=");
                skipSpace();
                const std::size_t start = pos_;
                while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
                    ++pos_;
                if (start == pos_)
                    fail("expected the size of factor '" + name + "'");
                if (pos_ - start > 15) // past 10^15 elements along one factor: no tensor of a real model
                    fail("the size of factor '" + name + "' is too large");
                rule.factors[static_cast<std::size_t>(f)].size = std::stoll(std::string(text_.substr(start, pos_ - start)));
            }
            if (peek() == ':') {
                expect(":");
                const std::string typeName = readName();
                const auto type = parseFactorType(typeName);
                if (!type)
                    fail("unknown factor type '" + typeName + "' (parallel, reduction, local, halo, gather, fixed)");
                rule.factors[static_cast<std::size_t>(f)].type = *type;
                explicitType_[static_cast<std::size_t>(f)] = true;
            }
            if (peek() == ',') {
                expect(",");
                continue;
            }
            expect("}");
            return;
        }
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::vector<bool> explicitType_;
};

std::string dimText(const ShardingRule& rule, const DimFactors& dim) {
    if (dim.size() == 1)
        return rule.factors[static_cast<std::size_t>(dim[0])].name;
    std::string s = "(";
    for (std::size_t i = 0; i < dim.size(); ++i)
        s += (i ? "," : "") + rule.factors[static_cast<std::size_t>(dim[i])].name;
    return s + ")";
}

std::string operandListText(const ShardingRule& rule, const std::vector<OperandFactors>& list) {
    std::string s = "(";
    for (std::size_t k = 0; k < list.size(); ++k) {
        s += k ? ",[" : "[";
        for (std::size_t d = 0; d < list[k].size(); ++d)
            s += (d ? "," : "") + dimText(rule, list[k][d]);
        s += "]";
    }
    return s + ")";
}

std::string bindOperands(ShardingRule& rule, const std::vector<OperandFactors>& operands,
                         const std::vector<std::vector<std::int64_t>>& shapes, const char* side, bool final) {
    if (operands.size() != shapes.size())
        return std::string("the rule has ") + std::to_string(operands.size()) + " " + side + "s but the op has " +
               std::to_string(shapes.size());
    // Two passes: single-factor dims fix sizes first, then compound dims infer their one unknown.
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t k = 0; k < operands.size(); ++k) {
            const std::string where = std::string(side) + " " + std::to_string(k);
            if (operands[k].size() != shapes[k].size())
                return where + " has rank " + std::to_string(shapes[k].size()) + " but the rule gives " +
                       std::to_string(operands[k].size()) + " dimensions";
            for (std::size_t d = 0; d < operands[k].size(); ++d) {
                const DimFactors& dim = operands[k][d];
                std::int64_t known = 1;
                int unknown = -1, unknownCount = 0;
                for (int f : dim) {
                    const std::int64_t sz = rule.factors[static_cast<std::size_t>(f)].size;
                    if (sz > 0)
                        known *= sz;
                    else {
                        unknown = f;
                        ++unknownCount;
                    }
                }
                const std::int64_t want = shapes[k][d];
                if (unknownCount == 1 && (dim.size() == 1 || pass == 1)) {
                    if (known <= 0 || want % known != 0)
                        return where + " dimension " + std::to_string(d) + " has size " + std::to_string(want) +
                               ", not a multiple of " + std::to_string(known);
                    rule.factors[static_cast<std::size_t>(unknown)].size = want / known;
                } else if (unknownCount == 0 && known != want) {
                    return where + " dimension " + std::to_string(d) + " has size " + std::to_string(want) +
                           " but the rule gives " + dimText(rule, dim) + " = " + std::to_string(known);
                } else if (unknownCount > 1 && pass == 1 && final) {
                    return where + " dimension " + std::to_string(d) + ": sizes of " + dimText(rule, dim) +
                           " cannot be inferred; give them in {...}";
                }
            }
        }
    }
    return {};
}

} // namespace

std::string_view factorTypeName(FactorType t) { return kTypeNames.name(t); }

std::optional<FactorType> parseFactorType(std::string_view name) { return kTypeNames.parse(name); }

ShardingRule ShardingRule::parse(std::string_view text) { return RuleReader(text).read(); }

std::string ShardingRule::bindShapes(const std::vector<std::vector<std::int64_t>>& inputShapes,
                                     const std::vector<std::vector<std::int64_t>>& outputShapes) {
    // Two rounds: the first infers what it can from either side, the second checks with all sizes known.
    for (int round = 0; round < 2; ++round) {
        if (auto e = bindOperands(*this, inputs, inputShapes, "input", round == 1); !e.empty())
            return e;
        if (auto e = bindOperands(*this, outputs, outputShapes, "output", round == 1); !e.empty())
            return e;
    }
    for (const Factor& f : factors) {
        if (f.size <= 0)
            return "factor '" + f.name + "' has no size";
    }
    for (std::size_t f = 0; f < factors.size(); ++f) {
        const bool inIn = [&] {
            for (std::size_t k = 0; k < inputs.size(); ++k)
                if (inInput(k, static_cast<int>(f)))
                    return true;
            return false;
        }();
        if (!inIn && factors[f].type != FactorType::Fixed)
            return "factor '" + factors[f].name + "' appears only in outputs; mark it ':fixed'";
    }
    return {};
}

std::string ShardingRule::toString() const {
    std::string s = operandListText(*this, inputs) + "->" + operandListText(*this, outputs) + " {";
    for (std::size_t f = 0; f < factors.size(); ++f) {
        s += (f ? "," : "") + factors[f].name + "=" + std::to_string(factors[f].size);
        const FactorType natural = inOutput(static_cast<int>(f)) ? FactorType::Parallel : FactorType::Reduction;
        if (factors[f].type != natural)
            s += ":" + std::string(factorTypeName(factors[f].type));
    }
    return s + "}";
}

int ShardingRule::findFactor(std::string_view name) const {
    for (std::size_t f = 0; f < factors.size(); ++f)
        if (factors[f].name == name)
            return static_cast<int>(f);
    return -1;
}

bool ShardingRule::inOutput(int f) const {
    for (const auto& operand : outputs)
        for (const auto& dim : operand)
            for (int g : dim)
                if (g == f)
                    return true;
    return false;
}

bool ShardingRule::inInput(std::size_t k, int f) const {
    for (const auto& dim : inputs[k])
        for (int g : dim)
            if (g == f)
                return true;
    return false;
}

bool ShardingRule::isMinorSomewhere(int f) const {
    auto scan = [f](const std::vector<OperandFactors>& list) {
        for (const auto& operand : list)
            for (const auto& dim : operand)
                for (std::size_t i = 1; i < dim.size(); ++i)
                    if (dim[i] == f)
                        return true;
        return false;
    };
    return scan(inputs) || scan(outputs);
}

bool ShardingRule::splittable(int f) const {
    return factors[static_cast<std::size_t>(f)].type != FactorType::Fixed && !isMinorSomewhere(f);
}

double ShardingRule::iterationSpace() const {
    double p = 1;
    for (const Factor& f : factors)
        p *= static_cast<double>(f.size);
    return p;
}

} // namespace shardscope
