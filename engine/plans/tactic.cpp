#include "engine/plans/tactic.h"

#include "engine/util/enum_names.h"

namespace shardscope {

namespace {
constexpr EnumNames<TacticKind, 7> kNames{{{{TacticKind::Batch, "batch"},
                                             {TacticKind::Megatron, "megatron"},
                                             {TacticKind::Sequence, "sequence"},
                                             {TacticKind::Zero, "zero"},
                                             {TacticKind::Expert, "expert"},
                                             {TacticKind::Shard, "shard"},
                                             {TacticKind::Auto, "auto"}}}};

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names)
        out += (out.empty() ? "" : " ") + n;
    return out;
}
} // namespace

std::string_view tacticKindName(TacticKind k) { return kNames.name(k); }

std::optional<TacticKind> parseTacticKind(std::string_view name) { return kNames.parse(name); }

std::vector<std::string_view> tacticKindNames() { return kNames.names(); }

std::string Tactic::toString() const {
    const std::string name(tacticKindName(kind));
    switch (kind) {
    case TacticKind::Batch:
        return name + "(" + axis + (inputs.empty() ? "" : ", " + joined(inputs)) + ")";
    case TacticKind::Zero:
        return name + "(" + std::to_string(stage) + ", " + axis + ")";
    case TacticKind::Shard:
        return name + "(" + joined(tensors) + ", " + std::to_string(dim) + ", " + axis + ")";
    case TacticKind::Auto:
        return name + "(" + (axis.empty() ? std::string("every axis") : axis) + ", " +
               std::string(algorithmName(algorithm)) + ")";
    default:
        return name + "(" + axis + ")";
    }
}

} // namespace shardscope
