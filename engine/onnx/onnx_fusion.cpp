#include "engine/onnx/onnx_fusion.h"

#include <algorithm>
#include <set>

namespace shardscope::onnx_import {

namespace {

/// Who reads each value, by node index.
std::map<std::string, std::vector<std::size_t>> readersOf(const OnnxGraph& g) {
    std::map<std::string, std::vector<std::size_t>> readers;
    for (std::size_t n = 0; n < g.nodes.size(); ++n)
        for (const std::string& in : g.nodes[n].inputs)
            if (!in.empty())
                readers[in].push_back(n);
    return readers;
}

/// The data inputs of node `n`.
std::vector<std::string> dataInputs(const OnnxGraph& g, const OnnxNode& n) {
    std::vector<std::string> out;
    for (const std::string& in : n.inputs)
        if (g.isData(in))
            out.push_back(in);
    return out;
}

/// The module path of a node name: "/blocks.0/norm1/ReduceMean" -> "/blocks.0/norm1/".
std::string pathOf(const std::string& name) {
    const std::size_t slash = name.rfind('/');
    return slash == std::string::npos ? std::string() : name.substr(0, slash + 1);
}

/// Replaces the nodes `members` by `fused`, placed where the last of them was (inputs stay earlier).
void replace(OnnxGraph& g, const std::set<std::size_t>& members, OnnxNode fused) {
    std::vector<OnnxNode> kept;
    const std::size_t last = *members.rbegin();
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (n == last)
            kept.push_back(std::move(fused));
        else if (!members.count(n))
            kept.push_back(std::move(g.nodes[n]));
    }
    g.nodes = std::move(kept);
}

class Fuser {
public:
    explicit Fuser(OnnxGraph& g) : g_(g) {}

    int run() {
        int fused = 0;
        for (bool changed = true; changed;) {
            changed = false;
            readers_ = readersOf(g_);
            for (std::size_t n = 0; n < g_.nodes.size() && !changed; ++n) {
                if (const int k = layerNorm(n)) {
                    fused += k;
                    changed = true;
                } else if (const int k2 = island(n)) {
                    fused += k2;
                    changed = true;
                }
            }
        }
        return fused;
    }

private:
    OnnxGraph& g_;
    std::map<std::string, std::vector<std::size_t>> readers_;

    const std::vector<std::size_t>& readers(const std::string& v) {
        static const std::vector<std::size_t> none;
        const auto r = readers_.find(v);
        return r == readers_.end() ? none : r->second;
    }
    /// The single reader of `v` if it is an `op` node, else npos.
    std::size_t only(const std::string& v, const char* op) {
        const auto& r = readers(v);
        return r.size() == 1 && g_.nodes[r[0]].opType == op ? r[0] : std::string::npos;
    }
    const std::string& out(std::size_t n) const { return g_.nodes[n].outputs.front(); }
    bool readsParameter(std::size_t n, std::string& param) const {
        for (const std::string& in : g_.nodes[n].inputs)
            if (g_.values.count(in) && g_.values.at(in).kind == ValueKind::Parameter)
                param = in;
        return !param.empty();
    }

    /// ReduceMean(x) -> Sub(x, mean) -> Pow -> ReduceMean -> Add(eps) -> Sqrt -> Div(centred, std)
    /// [-> Mul(scale) [-> Add(bias)]] starting at node `r`. Returns the nodes replaced, or 0.
    int layerNorm(std::size_t r) {
        const OnnxNode& mean = g_.nodes[r];
        if (mean.opType != "ReduceMean" || mean.outputs.empty() || dataInputs(g_, mean).size() != 1)
            return 0;
        const std::string x = mean.inputs[0];
        const std::size_t sub = only(out(r), "Sub");
        if (sub == std::string::npos || g_.nodes[sub].inputs[0] != x)
            return 0;
        const auto& centredReaders = readers(out(sub));
        if (centredReaders.size() != 2)
            return 0;
        std::size_t pow = std::string::npos, div = std::string::npos;
        for (std::size_t c : centredReaders) {
            if (g_.nodes[c].opType == "Pow")
                pow = c;
            if (g_.nodes[c].opType == "Div")
                div = c;
        }
        if (pow == std::string::npos || div == std::string::npos)
            return 0;
        const std::size_t var = only(out(pow), "ReduceMean");
        const std::size_t eps = var == std::string::npos ? var : only(out(var), "Add");
        const std::size_t sqrt = eps == std::string::npos ? eps : only(out(eps), "Sqrt");
        if (sqrt == std::string::npos || only(out(sqrt), "Div") != div || g_.nodes[div].inputs[0] != out(sub))
            return 0;
        std::set<std::size_t> members{r, sub, pow, var, eps, sqrt, div};
        OnnxNode fused;
        fused.opType = "LayerNormalization";
        fused.name = pathOf(mean.name) + "LayerNormalization";
        fused.inputs = {x};
        fused.attributes["axis"].i = mean.intsAttr("axes", {-1}).empty() ? -1 : mean.intsAttr("axes", {-1}).front();
        std::string result = out(div), scale, bias;
        if (const std::size_t mul = only(result, "Mul"); mul != std::string::npos && readsParameter(mul, scale)) {
            members.insert(mul);
            result = out(mul);
            fused.inputs.push_back(scale);
            if (const std::size_t add = only(result, "Add"); add != std::string::npos && readsParameter(add, bias)) {
                members.insert(add);
                result = out(add);
                fused.inputs.push_back(bias);
            }
        }
        fused.outputs = {result};
        const int replaced = int(members.size());
        replace(g_, members, std::move(fused));
        return replaced;
    }

    static bool elementwise(const std::string& op) {
        static const std::set<std::string> kinds{"Add", "Sub", "Mul", "Div", "Pow", "Erf", "Tanh", "Sigmoid",
                                                 "Sqrt", "Exp", "Neg", "Abs", "Reciprocal"};
        return kinds.count(op) > 0;
    }

    /// The element-wise island reading the data input of node `n`, fused when it is a GELU or SiLU.
    int island(std::size_t start) {
        const OnnxNode& first = g_.nodes[start];
        if (!elementwise(first.opType) || first.outputs.empty())
            return 0;
        const std::vector<std::string> roots = dataInputs(g_, first);
        if (roots.size() != 1)
            return 0;
        const std::string x = roots.front();
        std::set<std::string> values{x};
        std::set<std::size_t> members;
        for (bool grew = true; grew;) {
            grew = false;
            for (const std::string& v : std::vector<std::string>(values.begin(), values.end()))
                for (std::size_t c : readers(v)) {
                    const OnnxNode& node = g_.nodes[c];
                    std::string parameter;
                    if (members.count(c) || !elementwise(node.opType) || node.outputs.empty() || readsParameter(c, parameter))
                        continue;
                    const auto ins = dataInputs(g_, node);
                    if (!std::all_of(ins.begin(), ins.end(), [&](const std::string& i) { return values.count(i) > 0; }))
                        continue;
                    members.insert(c);
                    values.insert(out(c));
                    grew = true;
                }
        }
        bool gelu = false, silu = false;
        for (std::size_t m : members) {
            gelu = gelu || g_.nodes[m].opType == "Erf" || g_.nodes[m].opType == "Tanh";
            silu = silu || g_.nodes[m].opType == "Sigmoid";
        }
        if (members.size() < 2 || (!gelu && !silu))
            return 0;
        // One result leaves the island; x's other readers are outside it.
        std::string result;
        for (std::size_t m : members) {
            const auto& r = readers(out(m));
            const bool inside = !r.empty() && std::all_of(r.begin(), r.end(), [&](std::size_t c) { return members.count(c) > 0; });
            if (!inside) {
                if (!result.empty())
                    return 0;
                result = out(m);
            }
        }
        if (result.empty())
            return 0;
        OnnxNode fused;
        fused.opType = gelu ? "Gelu" : "Silu";
        fused.name = pathOf(g_.nodes[*members.begin()].name) + fused.opType;
        fused.inputs = {x};
        fused.outputs = {result};
        const int replaced = int(members.size());
        replace(g_, members, std::move(fused));
        return replaced;
    }
};

} // namespace

int fusePatterns(OnnxGraph& graph) { return Fuser(graph).run(); }

} // namespace shardscope::onnx_import
