#include "engine/export/dtensor_styles.h"

#include "engine/util/error.h"

#include <map>
#include <optional>

namespace shardscope {

namespace {

using Layout = DtensorLayout;

std::string layoutText(const Layout& l) { return l ? "Shard(" + std::to_string(*l) + ")" : "Replicate()"; }

[[noreturn]] void refuse(const std::string& why) { throw InputError("dtensor export: " + why); }

class StyleFinder {
public:
    StyleFinder(const Graph& graph, const Plan& plan, AxisId axis)
        : graph_(graph), plan_(plan), axis_(axis), bit_(axisBit(axis)) {}

    std::vector<DtensorStyle> run() {
        for (std::size_t o = 0; o < graph_.ops().size(); ++o)
            classify(o);
        for (auto& [o, style] : styles_)
            setOutput(style);
        for (std::size_t o = 0; o < graph_.ops().size(); ++o)
            checkInputs(o);
        std::vector<DtensorStyle> out;
        for (const auto& [o, style] : styles_)
            out.push_back(style);
        return out;
    }

private:
    const Graph& graph_;
    const Plan& plan_;
    AxisId axis_;
    AxisSet bit_;
    std::map<std::size_t, DtensorStyle> styles_;

    const Op& op(std::size_t o) const { return graph_.ops()[o]; }
    const OpStrategy& strategy(std::size_t o) const { return plan_.ops[o].strategy; }
    bool isParameter(TensorId t) const { return graph_.tensor(t).role == TensorRole::Parameter; }

    /// The layout of `sharding`, a tensor op `o` reads or writes, on the axis.
    Layout layoutOf(std::size_t o, const TensorSharding& sharding) const {
        for (std::size_t d = 0; d < sharding.dims.size(); ++d)
            if (sharding.dims[d] & bit_) {
                const int f = strategy(o).factorOfAxis[axis_.index()];
                const std::string& name = op(o).rule.factors[std::size_t(f)].name;
                const bool leading = name == op(o).hints.batch || name == op(o).hints.sequence;
                return leading ? static_cast<int>(d) : -1;
            }
        return std::nullopt;
    }

    /// The input operand of op `o` that is an activation (not a parameter), or -1.
    int activationInput(std::size_t o) const {
        for (std::size_t k = 0; k < op(o).inputs.size(); ++k)
            if (!isParameter(op(o).inputs[k]))
                return static_cast<int>(k);
        return -1;
    }

    /// Fixes the style of op `o` from what its strategy splits on the axis; nothing for modules kept whole.
    void classify(std::size_t o) {
        const Op& x = op(o);
        const OpStrategy& s = strategy(o);
        bool hasParameter = false, parameterSplit = false;
        for (std::size_t k = 0; k < x.inputs.size(); ++k)
            if (isParameter(x.inputs[k])) {
                hasParameter = true;
                parameterSplit = parameterSplit || (inputSplitAxes(x, k, s) & bit_);
            }
        const int act = activationInput(o);
        const bool actSplit = act >= 0 && (inputSplitAxes(x, std::size_t(act), s) & bit_);
        const TensorSharding out = outputSharding(x, 0, s);
        const bool outSplit = out.splitAxes() & bit_, partial = out.partial & bit_;
        if (!hasParameter || (!parameterSplit && !actSplit && !outSplit && !partial))
            return;
        DtensorStyle style;
        style.op = o;
        if (parameterSplit && outSplit && !actSplit && !partial) {
            style.style = ModuleStyle::Colwise;
        } else if (parameterSplit && partial && !outSplit) {
            style.style = ModuleStyle::Rowwise;
        } else if (actSplit && outSplit && !partial &&
                   layoutOf(o, inputSharding(x, std::size_t(act), s)) == layoutOf(o, out)) {
            style.style = ModuleStyle::Sequence;
            style.output = layoutOf(o, out);
            style.splitTableKeptWhole = parameterSplit;
        } else {
            refuse("op " + x.name + " (" + s.toString(x.rule, plan_.mesh) + ") splits its weights and activations on " +
                   plan_.mesh.axes[axis_.index()].name + " in a way no module style (ColwiseParallel, RowwiseParallel, "
                   "SequenceParallel) expresses");
        }
        styles_.emplace(o, style);
    }

    /// The layout every consumer of op `o`'s output reads it in, if they agree.
    std::optional<Layout> consumersLayout(std::size_t o) const {
        const TensorId t = op(o).outputs.front();
        std::optional<Layout> common;
        for (OpId c : graph_.tensor(t).consumers) {
            const Op& y = op(c.index());
            for (std::size_t k = 0; k < y.inputs.size(); ++k)
                if (y.inputs[k] == t) {
                    const Layout want = layoutOf(c.index(), inputSharding(y, k, strategy(c.index())));
                    if (common && *common != want)
                        return std::nullopt;
                    common = want;
                }
        }
        return common ? common : std::optional<Layout>(Layout{});
    }

    /// A Colwise or Rowwise module's output layout: what its consumers read (torch reshards to it).
    void setOutput(DtensorStyle& style) {
        if (style.style == ModuleStyle::Sequence)
            return;
        const Op& x = op(style.op);
        const std::optional<Layout> want = consumersLayout(style.op);
        if (!want) {
            if (style.style == ModuleStyle::Rowwise)
                refuse("the consumers of " + graph_.tensor(x.outputs.front()).name + " (reduced by row-wise " + x.name +
                       ") read it in different layouts; a RowwiseParallel module reduces to one");
            style.output = layoutOf(style.op, outputSharding(x, 0, strategy(style.op)));
        } else {
            style.output = *want;
        }
        for (OpId c : graph_.tensor(x.outputs.front()).consumers)
            if (op(c.index()).kind == OpKind::CrossEntropy && style.output)
                style.localOutput = false;
    }

    /// The layout tensor `t` (output `k` of its producer) arrives in on the axis.
    Layout arriving(TensorId t) const {
        const Tensor& tensor = graph_.tensor(t);
        if (!tensor.producer.valid())
            return std::nullopt; // fed whole to every rank
        const std::size_t p = tensor.producer.index();
        const Op& x = op(p);
        std::size_t k = 0;
        while (x.outputs[k] != t)
            ++k;
        const auto style = styles_.find(p);
        if (style != styles_.end() && style->second.style != ModuleStyle::Sequence)
            return style->second.output;
        const TensorSharding out = outputSharding(x, k, strategy(p));
        if (out.partial & bit_)
            refuse("op " + x.name + " leaves " + tensor.name + " partial over " + plan_.mesh.axes[axis_.index()].name +
                   "; under DTensor module styles only a RowwiseParallel module's output is reduced");
        return layoutOf(p, out);
    }

    /// Every activation op `o` reads must arrive in the layout it reads it in, unless `o` is a Colwise or
    /// Rowwise module, which reshards its input (its input_layouts say from what).
    void checkInputs(std::size_t o) {
        const Op& x = op(o);
        const auto style = styles_.find(o);
        const int act = activationInput(o);
        for (std::size_t k = 0; k < x.inputs.size(); ++k) {
            if (isParameter(x.inputs[k]))
                continue;
            const Layout have = arriving(x.inputs[k]);
            if (style != styles_.end() && static_cast<int>(k) == act && style->second.style != ModuleStyle::Sequence) {
                style->second.input = have;
                continue;
            }
            const Layout want = layoutOf(o, inputSharding(x, k, strategy(o)));
            if (have != want)
                refuse("op " + x.name + " reads " + graph_.tensor(x.inputs[k]).name + " as " + layoutText(want) + " on " +
                       plan_.mesh.axes[axis_.index()].name + " but it arrives as " + layoutText(have) +
                       "; DTensor module styles reshard only at a ColwiseParallel or RowwiseParallel module's input "
                       "and at a RowwiseParallel module's output");
        }
    }
};

} // namespace

std::string DtensorStyle::python() const {
    switch (style) {
    case ModuleStyle::Sequence:
        return "SequenceParallel(sequence_dim=" + std::to_string(output.value_or(1)) + ")";
    case ModuleStyle::Colwise:
    case ModuleStyle::Rowwise:
        break;
    }
    return std::string(style == ModuleStyle::Colwise ? "ColwiseParallel" : "RowwiseParallel") +
           "(input_layouts=" + layoutText(input) + ", output_layouts=" + layoutText(output) +
           (localOutput ? "" : ", use_local_output=False") + ")";
}

std::vector<DtensorStyle> dtensorStyles(const Graph& graph, const Plan& plan, AxisId axis) {
    return StyleFinder(graph, plan, axis).run();
}

} // namespace shardscope
