#include "engine/search/search_problem.h"

#include "engine/util/error.h"

#include <map>
#include <tuple>

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

SearchProblem::SearchProblem(const CostModel& model, const std::vector<std::optional<OpStrategy>>& locks,
                             const RepeatedBlocks* folded)
    : model_(model), folded_(folded) {
    const Graph& g = model.graph();
    const std::size_t n = g.ops().size();
    // The op whose tables op v copies (itself unless it sits in block 3 or later).
    std::vector<std::size_t> source(n);
    for (std::size_t v = 0; v < n; ++v) {
        source[v] = v;
        if (folded && folded->blockOf[v] >= 2)
            source[v] = folded->blocks[1][std::size_t(folded->positionOf[v])].index();
    }
    candidates_.resize(n);
    time_.resize(n);
    memory_.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
        const Op& op = g.ops()[v];
        if (v < locks.size() && locks[v]) {
            if (auto e = verifyStrategy(op, model.mesh(), *locks[v]); !e.empty())
                throw InputError("lock on op '" + op.name + "': " + e);
            candidates_[v] = {*locks[v]};
        } else if (source[v] != v) {
            candidates_[v] = candidates_[source[v]];
            time_[v] = time_[source[v]];
            memory_[v] = memory_[source[v]];
            continue;
        } else {
            candidates_[v] = enumerateStrategies(op, model.mesh());
        }
        for (const OpStrategy& s : candidates_[v]) {
            const OpCost c = model.opCost(OpId(v), s);
            time_[v].push_back(c.totalTime());
            memory_[v].push_back(c.memory.sum());
        }
    }

    // Edge tables [producer candidate][consumer candidate]; folded edges copy their block-2 twin.
    const auto& edges = model.edges();
    std::map<std::tuple<int, int, std::size_t>, std::size_t> edgeIndex;
    for (std::size_t i = 0; i < edges.size(); ++i)
        edgeIndex.emplace(std::make_tuple(edges[i].from.value, edges[i].to.value, edges[i].toInput), i);
    auto twin = [&](const Edge& e) -> std::optional<std::size_t> {
        if (!folded || folded->blockOf[e.to.index()] < 2)
            return std::nullopt;
        const int from = folded->blockOf[e.from.index()] == folded->blockOf[e.to.index()]
                             ? int(source[e.from.index()])
                             : folded->exit(0).value;
        return edgeIndex.at(std::make_tuple(from, int(source[e.to.index()]), e.toInput));
    };
    std::vector<std::vector<double>> tables(edges.size());
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = 0; i < edges.size(); ++i) {
            const Edge& e = edges[i];
            const auto copy = twin(e);
            if (pass == 0 && !copy)
                tables[i] = edgeTable(e);
            else if (pass == 1 && copy)
                tables[i] = tables[*copy];
        }

    std::map<std::pair<int, int>, std::size_t> pairIndex;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const Edge& e = edges[i];
        const int u = e.from.value, w = e.to.value;
        const int a = std::min(u, w), b = std::max(u, w);
        auto [it, fresh] = pairIndex.emplace(std::make_pair(a, b), pairs_.size());
        if (fresh)
            pairs_.push_back(PairTable{a, b, std::vector<double>(candidates_[std::size_t(a)].size() *
                                                                 candidates_[std::size_t(b)].size(), 0.0)});
        PairTable& pt = pairs_[it->second];
        const std::size_t ku = candidates_[e.from.index()].size(), kw = candidates_[e.to.index()].size();
        const std::size_t kb = candidates_[std::size_t(b)].size();
        for (std::size_t x = 0; x < ku; ++x)
            for (std::size_t y = 0; y < kw; ++y)
                pt.table[u == a ? x * kb + y : y * kb + x] += tables[i][x * kw + y];
    }
}

std::vector<double> SearchProblem::edgeTable(const Edge& e) const {
    const auto& cu = candidates_[e.from.index()];
    const auto& cw = candidates_[e.to.index()];
    const EndGroups<CostModel::ProducerEnd> from(cu, [&](const OpStrategy& s) { return model_.producerEnd(e, s); });
    const EndGroups<CostModel::ConsumerEnd> to(cw, [&](const OpStrategy& s) { return model_.consumerEnd(e, s); });
    std::vector<double> distinct(from.ends.size() * to.ends.size());
    for (std::size_t i = 0; i < from.ends.size(); ++i)
        for (std::size_t j = 0; j < to.ends.size(); ++j)
            distinct[i * to.ends.size() + j] = model_.edgeCost(e, from.ends[i], to.ends[j]).time();
    std::vector<double> table(cu.size() * cw.size());
    for (std::size_t i = 0; i < cu.size(); ++i)
        for (std::size_t j = 0; j < cw.size(); ++j)
            table[i * cw.size() + j] = distinct[std::size_t(from.groupOf[i]) * to.ends.size() + std::size_t(to.groupOf[j])];
    return table;
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
