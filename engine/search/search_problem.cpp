#include "engine/search/search_problem.h"

#include "engine/util/error.h"

#include <map>

namespace shardscope {

namespace {

/// Groups the candidates of one edge end by what the edge cost depends on, so each distinct pair of
/// ends is costed once.
template <typename End> struct EndGroups {
    std::vector<End> ends;           ///< distinct ends
    std::vector<int> groupOf;        ///< per candidate, its end's index

    template <typename Make> EndGroups(const std::vector<OpStrategy>& candidates, Make make) {
        std::map<End, int> index;
        for (const OpStrategy& s : candidates) {
            End end = make(s);
            auto [it, fresh] = index.emplace(end, static_cast<int>(ends.size()));
            if (fresh)
                ends.push_back(std::move(end));
            groupOf.push_back(it->second);
        }
    }
};

} // namespace

SearchProblem::SearchProblem(const CostModel& model, const std::vector<std::optional<OpStrategy>>& locks)
    : model_(model) {
    const Graph& g = model.graph();
    const std::size_t n = g.ops().size();
    candidates_.resize(n);
    time_.resize(n);
    memory_.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
        const Op& op = g.ops()[v];
        if (v < locks.size() && locks[v]) {
            if (auto e = verifyStrategy(op, model.mesh(), *locks[v]); !e.empty())
                throw InputError("lock on op '" + op.name + "': " + e);
            candidates_[v] = {*locks[v]};
        } else {
            candidates_[v] = enumerateStrategies(op, model.mesh());
        }
        for (const OpStrategy& s : candidates_[v]) {
            const OpCost c = model.opCost(OpId(v), s);
            time_[v].push_back(c.totalTime());
            memory_[v].push_back(c.memory.sum());
        }
    }
    std::map<std::pair<int, int>, std::size_t> pairIndex;
    for (const Edge& e : model.edges()) {
        const int u = e.from.value, w = e.to.value;
        const auto& cu = candidates_[e.from.index()];
        const auto& cw = candidates_[e.to.index()];
        const EndGroups<CostModel::ProducerEnd> from(cu, [&](const OpStrategy& s) { return model.producerEnd(e, s); });
        const EndGroups<CostModel::ConsumerEnd> to(cw, [&](const OpStrategy& s) { return model.consumerEnd(e, s); });
        std::vector<double> distinct(from.ends.size() * to.ends.size());
        for (std::size_t i = 0; i < from.ends.size(); ++i)
            for (std::size_t j = 0; j < to.ends.size(); ++j)
                distinct[i * to.ends.size() + j] = model.edgeCost(e, from.ends[i], to.ends[j]).time();
        const int a = std::min(u, w), b = std::max(u, w);
        auto [it, fresh] = pairIndex.emplace(std::make_pair(a, b), pairs_.size());
        if (fresh)
            pairs_.push_back(PairTable{a, b, std::vector<double>(candidates_[std::size_t(a)].size() *
                                                                 candidates_[std::size_t(b)].size(), 0.0)});
        PairTable& pt = pairs_[it->second];
        const std::size_t kb = candidates_[std::size_t(b)].size();
        for (std::size_t i = 0; i < cu.size(); ++i)
            for (std::size_t j = 0; j < cw.size(); ++j) {
                const double t = distinct[std::size_t(from.groupOf[i]) * to.ends.size() + std::size_t(to.groupOf[j])];
                pt.table[u == a ? i * kb + j : j * kb + i] += t;
            }
    }
}

double SearchProblem::objective(const std::vector<int>& choice, double lambda) const {
    double total = 0;
    for (int v = 0; v < size(); ++v)
        total += time(v, choice[std::size_t(v)]) + lambda * memory(v, choice[std::size_t(v)]);
    for (const PairTable& p : pairs_)
        total += p.table[std::size_t(choice[std::size_t(p.a)]) * std::size_t(choices(p.b)) +
                         std::size_t(choice[std::size_t(p.b)])];
    return total;
}

double SearchProblem::memoryOf(const std::vector<int>& choice) const {
    double total = 0;
    for (int v = 0; v < size(); ++v)
        total += memory(v, choice[std::size_t(v)]);
    return total;
}

double SearchProblem::spaceSize() const {
    double s = 1;
    for (const auto& c : candidates_)
        s *= static_cast<double>(c.size());
    return s;
}

} // namespace shardscope
