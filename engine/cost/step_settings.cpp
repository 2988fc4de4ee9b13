#include "engine/cost/step_settings.h"

#include "engine/util/enum_names.h"

namespace shardscope {

namespace {
constexpr EnumNames<Recompute, 3> kRecompute{
    {{{Recompute::None, "none"}, {Recompute::Selective, "selective"}, {Recompute::Full, "full"}}}};
constexpr EnumNames<AttentionKernel, 2> kAttention{
    {{{AttentionKernel::Fused, "fused"}, {AttentionKernel::Unfused, "unfused"}}}};
constexpr EnumNames<TpOverlap, 3> kTpOverlap{
    {{{TpOverlap::Off, "off"}, {TpOverlap::Backward, "backward"}, {TpOverlap::Full, "full"}}}};
constexpr EnumNames<LossKernel, 2> kLoss{{{{LossKernel::Unfused, "unfused"}, {LossKernel::Fused, "fused"}}}};
constexpr EnumNames<Schedule, 3> kSchedule{
    {{{Schedule::OneFOneB, "1f1b"}, {Schedule::GPipe, "gpipe"}, {Schedule::Interleaved, "interleaved"}}}};
constexpr EnumNames<OptimizerKind, 2> kOptimizers{{{{OptimizerKind::Adam, "adam"}, {OptimizerKind::Sgd, "sgd"}}}};
} // namespace

std::string_view recomputeName(Recompute r) { return kRecompute.name(r); }

std::optional<Recompute> parseRecompute(std::string_view name) { return kRecompute.parse(name); }

std::string_view attentionName(AttentionKernel a) { return kAttention.name(a); }

std::optional<AttentionKernel> parseAttention(std::string_view name) { return kAttention.parse(name); }

std::string_view tpOverlapName(TpOverlap t) { return kTpOverlap.name(t); }

std::optional<TpOverlap> parseTpOverlap(std::string_view name) {
    return name == "on" ? std::optional<TpOverlap>(TpOverlap::Full) : kTpOverlap.parse(name);
}

std::string_view lossName(LossKernel l) { return kLoss.name(l); }

std::optional<LossKernel> parseLoss(std::string_view name) { return kLoss.parse(name); }

std::string_view scheduleName(Schedule s) { return kSchedule.name(s); }

std::optional<Schedule> parseSchedule(std::string_view name) { return kSchedule.parse(name); }

std::string_view optimizerName(OptimizerKind o) { return kOptimizers.name(o); }

std::optional<OptimizerKind> parseOptimizer(std::string_view name) { return kOptimizers.parse(name); }

} // namespace shardscope
