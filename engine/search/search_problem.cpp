#include "engine/search/search_problem.h"

#include "engine/pipeline/pipeline_cost.h"
#include "engine/util/error.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace shardscope {

namespace {

/// Pipelined: per block exit op, the edges that carry its output out of its block (one per tensor).
/// P V - 1 of the L exits send theirs to the next stage every micro-batch, wherever the cut falls, so
/// each exit's table carries (P V - 1) / L of its sends: exact in total when the exits share their
/// strategy (folded blocks), an estimate when they differ. Empty without a pipe axis or blocks.
std::map<std::size_t, std::vector<const Edge*>> blockExits(const CostModel& model, const RepeatedBlocks* given) {
    std::map<std::size_t, std::vector<const Edge*>> exits;
    if (model.mesh().pipelineStages() <= 1)
        return exits;
    std::optional<RepeatedBlocks> found;
    if (!given)
        found = findLayers(model.graph());
    const RepeatedBlocks* blocks = given ? given : found ? &*found : nullptr;
    if (!blocks)
        return exits;
    for (int b = 0; b < blocks->count(); ++b)
        exits[blocks->exit(b).index()];
    for (const Edge& e : model.edges()) {
        const auto it = exits.find(e.from.index());
        if (it == exits.end() || e.parameterShare || blocks->blockOf[e.to.index()] == blocks->blockOf[e.from.index()])
            continue;
        if (std::none_of(it->second.begin(), it->second.end(), [&](const Edge* x) { return x->tensor == e.tensor; }))
            it->second.push_back(&e);
    }
    return exits;
}

} // namespace

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

const std::vector<OpStrategy>& StrategyCache::of(const Graph& graph, OpId o, const Mesh& mesh) {
    if (byOp_.size() < graph.ops().size())
        byOp_.resize(graph.ops().size());
    auto& slot = byOp_[o.index()];
    if (!slot)
        slot = enumerateStrategies(graph.op(o), mesh);
    return *slot;
}

SearchProblem::SearchProblem(std::shared_ptr<const CostModel> shared, const std::vector<std::optional<StrategyPin>>& pins,
                             const RepeatedBlocks* folded, std::stop_token stop, Edges edges, StrategyCache* strategies,
                             const SearchProblem* like, const RepeatedBlocks* blocks)
    : model_(std::move(shared)), weights_(pipelineWeights(model_->mesh(), model_->settings())), folded_(folded) {
    const CostModel& model = *model_;
    if (like && (like->cancelled_ || like->folded_ != folded || like->size() != int(model.graph().ops().size()) ||
                 like->weights_ != weights_))
        like = nullptr;
    const Graph& g = model.graph();
    const std::size_t n = g.ops().size();
    // The op whose tables op v shares (itself unless it sits in block 3 or later).
    std::vector<std::size_t>& source = source_;
    source.resize(n);
    for (std::size_t v = 0; v < n; ++v)
        source[v] = folded ? folded->twin(OpId(v)).index() : v;
    StrategyCache local;
    StrategyCache& valid = strategies ? *strategies : local;
    const std::map<std::size_t, std::vector<const Edge*>> exits = blockExits(model, blocks ? blocks : folded);
    const double exitShare = exits.empty() ? 0 : double(model.mesh().pipelineStages() * model.settings().virtualStages - 1) /
                                                     double(exits.size());
    ops_.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
        if (stop.stop_requested()) {
            cancelled_ = true;
            return;
        }
        const Op& op = g.ops()[v];
        if (source[v] != v) {
            ops_[v] = ops_[source[v]];
            continue;
        }
        if (like && model.costsOpAs(OpId(v), *like->model_)) {
            ops_[v] = like->ops_[v];
            continue;
        }
        auto tables = std::make_shared<OpTables>();
        const StrategyPin* pin = v < pins.size() && pins[v] ? &*pins[v] : nullptr;
        if (pin && pin->complete()) {
            OpStrategy fixed = OpStrategy::replicated(model.mesh().rank());
            for (std::size_t a = 0; a < fixed.factorOfAxis.size() && a < pin->factorOfAxis.size(); ++a)
                fixed.factorOfAxis[a] = *pin->factorOfAxis[a];
            if (auto e = verifyStrategy(op, model.mesh(), fixed); !e.empty())
                throw InputError("op '" + op.name + "' is fixed to " + fixed.toString(op.rule, model.mesh()) +
                                 ", which is not valid: " + e);
            tables->candidates = {fixed};
        } else {
            for (const OpStrategy& s : valid.of(g, OpId(v), model.mesh()))
                if (!pin || pin->allows(s))
                    tables->candidates.push_back(s);
            if (tables->candidates.empty())
                throw InputError("op '" + op.name + "': no valid strategy agrees with the axes fixed so far");
        }
        const auto exit = exits.find(v);
        for (const OpStrategy& s : tables->candidates) {
            const OpCost c = model.opCost(OpId(v), s);
            double sends = 0;
            if (exit != exits.end())
                for (const Edge* e : exit->second)
                    sends += exitShare * boundaryTime(model, *e, s);
            tables->time.push_back(weights_.opTime(c) + weights_.time * sends);
            tables->memory.push_back(weights_.memory(c.memory, c.activationWorkspace));
            tables->transient.push_back(c.transient);
        }
        ops_[v] = std::move(tables);
    }
    copies_.assign(n, 0);
    for (std::size_t v = 0; v < n; ++v)
        ++copies_[source[v]];
    if (edges == Edges::Build)
        buildEdges(stop);
}

void SearchProblem::shareEdges(const SearchProblem& other) {
    if (other.model_->settings().recompute == model_->settings().recompute) {
        pairs_ = other.pairs_;
        parts_ = other.parts_;
        hasEdges_ = other.hasEdges_;
    } else if (other.parts_) {
        useEdgeParts(other.parts_);
    }
}

void SearchProblem::useEdgeParts(std::shared_ptr<const EdgeParts> parts) {
    parts_ = std::move(parts);
    combineParts();
}

// The sums below run over the ops that own their tables, each counted once per op sharing them.

double SearchProblem::minStepTime() const {
    double total = 0;
    for (int v = 0; v < size(); ++v)
        if (copies_[std::size_t(v)] > 0)
            total += copies_[std::size_t(v)] * *std::min_element(op(v).time.begin(), op(v).time.end());
    return total;
}

double SearchProblem::minPeakMemory() const {
    double total = 0, transient = 0;
    for (int v = 0; v < size(); ++v)
        if (copies_[std::size_t(v)] > 0) {
            total += copies_[std::size_t(v)] * *std::min_element(op(v).memory.begin(), op(v).memory.end());
            transient = std::max(transient, *std::min_element(op(v).transient.begin(), op(v).transient.end()));
        }
    return total + transient;
}

double SearchProblem::fittingLowerBound(double capacity) const {
    double leastTransient = 0;
    for (int v = 0; v < size(); ++v)
        if (copies_[std::size_t(v)] > 0)
            leastTransient = std::max(leastTransient, *std::min_element(op(v).transient.begin(), op(v).transient.end()));
    const double room = capacity - leastTransient;
    // g(lambda) = sum_v copies min_k (t + lambda m) - lambda room is concave; its slope is the memory
    // of the argmins less room, falling as lambda grows. Any lambda gives a valid bound; bisect for
    // the slope's sign change to get close to the best one.
    auto weighed = [&](double lambda, double& memory) {
        double total = 0;
        memory = 0;
        for (int v = 0; v < size(); ++v) {
            const int count = copies_[std::size_t(v)];
            if (count == 0)
                continue;
            const OpTables& o = op(v);
            std::size_t best = 0;
            for (std::size_t k = 1; k < o.time.size(); ++k) {
                const double here = o.time[k] + lambda * o.memory[k], there = o.time[best] + lambda * o.memory[best];
                if (here < there || (here == there && o.memory[k] < o.memory[best]))
                    best = k;
            }
            total += count * (o.time[best] + lambda * o.memory[best]);
            memory += count * o.memory[best];
        }
        return total - lambda * room;
    };
    double memory = 0;
    const double atZero = weighed(0, memory);
    if (memory <= room)
        return atZero;
    if (minPeakMemory() > capacity)
        return std::numeric_limits<double>::infinity();
    // A weight where the argmins fit: the slope is <= 0 from there on.
    double low = 0, high = atZero / std::max(memory, 1.0);
    double best = atZero;
    for (int i = 0; i < 200; ++i) {
        best = std::max(best, weighed(high, memory));
        if (memory <= room)
            break;
        low = high;
        high *= 4;
    }
    for (int i = 0; i < 40 && high > low * (1 + 1e-9); ++i) {
        const double mid = 0.5 * (low + high);
        best = std::max(best, weighed(mid, memory));
        (memory > room ? low : high) = mid;
    }
    return best;
}

double SearchProblem::minIncrease(const SearchProblem& other, double lambda) const {
    // Ops sharing tables in both problems (the same folding) are summed once with their count.
    const bool sameSharing = other.source_ == source_;
    double total = 0;
    for (int v = 0; v < size(); ++v) {
        const int count = sameSharing ? copies_[std::size_t(v)] : 1;
        if (count == 0)
            continue;
        double least = std::numeric_limits<double>::infinity();
        for (int k = 0; k < choices(v); ++k)
            least = std::min(least, time(v, k) + lambda * memory(v, k) - other.time(v, k) - lambda * other.memory(v, k));
        total += count * least;
    }
    return total;
}

bool SearchProblem::noBetterThan(const SearchProblem& other) const {
    for (int v = 0; v < size(); ++v) {
        const OpTables& mine = op(v);
        const OpTables& theirs = other.op(v);
        if (&mine == &theirs)
            continue;
        if (mine.candidates != theirs.candidates)
            return false;
        for (std::size_t k = 0; k < mine.candidates.size(); ++k)
            if (mine.time[k] < theirs.time[k] || mine.memory[k] < theirs.memory[k] ||
                mine.transient[k] < theirs.transient[k]) {
                return false;
            }
    }
    return true;
}

void SearchProblem::dropEdges() {
    pairs_.clear();
    parts_.reset();
    hasEdges_ = false;
}

void SearchProblem::buildEdges(std::stop_token stop) {
    if (cancelled_ || hasEdges_)
        return;
    const RepeatedBlocks* folded = folded_;
    const std::vector<std::size_t>& source = source_;
    // Edge tables [candidate of a][candidate of b], summed per pair of ops a < b and kept by pass. A
    // pair inside a folded block (3..L) shares the tables of its twin in block 2 (or of the entry from
    // block 1).
    const auto& edges = model_->edges();
    auto twinOf = [&](const Edge& e) -> std::pair<int, int> {
        const int from = folded->blockOf[e.from.index()] == folded->blockOf[e.to.index()]
                             ? int(source[e.from.index()])
                             : folded->exit(0).value;
        return {from, int(source[e.to.index()])};
    };
    auto key = [](int a, int b) { return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b); };
    std::unordered_map<std::uint64_t, std::size_t> pairIndex;
    pairIndex.reserve(edges.size());
    struct Sums {
        std::vector<double> intoB, intoA, backward;
    };
    std::vector<Sums> sums;
    struct Shared {
        bool shared = false;
        std::uint64_t twin = 0;   ///< key of the twin pair
        bool transposed = false;  ///< the twin's ops are ordered the other way round
    };
    std::vector<Shared> sharedPairs;
    auto parts = std::make_shared<EdgeParts>();
    EdgeCache cache;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        if (stop.stop_requested()) {
            cancelled_ = true;
            return;
        }
        const Edge& e = edges[i];
        const int u = e.from.value, w = e.to.value;
        const int a = std::min(u, w), b = std::max(u, w);
        auto [it, fresh] = pairIndex.emplace(key(a, b), parts->pairs.size());
        if (fresh) {
            parts->pairs.push_back(EdgeParts::Pair{a, b, nullptr, nullptr, nullptr});
            sums.emplace_back();
            sharedPairs.emplace_back();
        }
        if (folded && folded->blockOf[e.to.index()] >= 2) {
            const auto [tu, tw] = twinOf(e);
            sharedPairs[it->second] = Shared{true, key(std::min(tu, tw), std::max(tu, tw)), (u < w) != (tu < tw)};
            continue;
        }
        Sums& sum = sums[it->second];
        const std::size_t ka = std::size_t(choices(a)), kb = std::size_t(choices(b));
        std::vector<double>& forward = u == a ? sum.intoB : sum.intoA;
        for (std::vector<double>* v : {&forward, &sum.backward})
            if (v->empty())
                v->assign(ka * kb, 0.0);
        addEdgeTables(e, cache, forward, sum.backward);
    }
    auto own = [](std::vector<double>& v) {
        return v.empty() ? nullptr : std::make_shared<const std::vector<double>>(std::move(v));
    };
    for (std::size_t p = 0; p < parts->pairs.size(); ++p)
        if (!sharedPairs[p].shared) {
            parts->pairs[p].intoB = own(sums[p].intoB);
            parts->pairs[p].intoA = own(sums[p].intoA);
            parts->pairs[p].backward = own(sums[p].backward);
        }
    for (std::size_t p = 0; p < parts->pairs.size(); ++p) {
        if (!sharedPairs[p].shared)
            continue;
        const EdgeParts::Pair& src = parts->pairs[pairIndex.at(sharedPairs[p].twin)];
        EdgeParts::Pair& dst = parts->pairs[p];
        if (!sharedPairs[p].transposed) {
            dst.intoB = src.intoB;
            dst.intoA = src.intoA;
            dst.backward = src.backward;
            continue;
        }
        // The twin's ops are ordered the other way round: transpose once, and its forward
        // directions swap.
        const std::size_t ka = std::size_t(choices(src.a)), kb = std::size_t(choices(src.b));
        auto transpose = [&](const std::shared_ptr<const std::vector<double>>& v) -> std::shared_ptr<const std::vector<double>> {
            if (!v)
                return nullptr;
            std::vector<double> t(ka * kb);
            for (std::size_t x = 0; x < ka; ++x)
                for (std::size_t y = 0; y < kb; ++y)
                    t[y * ka + x] = (*v)[x * kb + y];
            return std::make_shared<const std::vector<double>>(std::move(t));
        };
        dst.intoB = transpose(src.intoA);
        dst.intoA = transpose(src.intoB);
        dst.backward = transpose(src.backward);
    }
    parts_ = std::move(parts);
    combineParts();
}

void SearchProblem::combineParts() {
    // How often each op's input reshardings run forward: twice when this setting recomputes it.
    auto passes = [&](int consumer) { return double(model_->forwardPasses(OpId(std::size_t(consumer)))); };
    pairs_.clear();
    pairs_.reserve(parts_->pairs.size());
    // Folded repeats share their parts; they share the combined table too.
    std::map<const std::vector<double>*, std::shared_ptr<const std::vector<double>>> combined;
    for (const EdgeParts::Pair& p : parts_->pairs) {
        auto& slot = combined[p.backward.get()];
        if (!slot) {
            std::vector<double> t = *p.backward;
            const double intoB = passes(p.b), intoA = passes(p.a);
            if (p.intoB)
                for (std::size_t i = 0; i < t.size(); ++i)
                    t[i] += intoB * (*p.intoB)[i];
            if (p.intoA)
                for (std::size_t i = 0; i < t.size(); ++i)
                    t[i] += intoA * (*p.intoA)[i];
            for (double& x : t)
                x *= weights_.time;
            slot = std::make_shared<const std::vector<double>>(std::move(t));
        }
        pairs_.push_back(PairTable{p.a, p.b, slot});
    }
    hasEdges_ = true;
}

void SearchProblem::addEdgeTables(const Edge& e, EdgeCache& cache, std::vector<double>& forward,
                                  std::vector<double>& backward) const {
    const auto& cu = candidates(e.from.value);
    const auto& cw = candidates(e.to.value);
    const EndGroups<CostModel::ProducerEnd> from(cu, [&](const OpStrategy& s) { return model_->producerEnd(e, s); });
    const EndGroups<CostModel::ConsumerEnd> to(cw, [&](const OpStrategy& s) { return model_->consumerEnd(e, s); });
    // Edges of the same tensor size, gradient need and ends (say the same layer's in several
    // unfolded blocks) cost the same: cost the distinct pairs of ends once per build.
    const bool keeps = model_->keepsProducerSharding(e);
    auto [slot, fresh] = cache.byKey.try_emplace(
        EdgeKey{model_->graph().tensor(e.tensor).bytes(), model_->needsGradient(e.tensor), keeps, from.ends, to.ends});
    std::vector<CostModel::EdgeTimes>& distinct = slot->second;
    if (fresh) {
        // CostModel::edgeTimes, with each resharding priced once per build: other edges carry the
        // same reshardings of the same size.
        const double bytes = model_->graph().tensor(e.tensor).bytes();
        const bool gradient = model_->needsGradient(e.tensor);
        // Each end's sharding by its memo number (-1: too wide to pack, priced every time).
        auto ids = [&](const auto& ends, auto part) {
            std::vector<int> out;
            for (const auto& end : ends) {
                const auto w = ReshardMemo::word(end.*part);
                out.push_back(w ? cache.reshardings.id(*w) : -1);
            }
            return out;
        };
        const auto fromValue = ids(from.ends, &CostModel::ProducerEnd::value);
        const auto fromGradient = ids(from.ends, &CostModel::ProducerEnd::gradient);
        const auto toValue = ids(to.ends, &CostModel::ConsumerEnd::value);
        const auto toGradient = ids(to.ends, &CostModel::ConsumerEnd::gradient);
        ReshardMemo::Sized& sized = cache.reshardings.sized(bytes);
        auto time = [&](int a, int b, const TensorSharding& sa, const TensorSharding& sb) {
            auto price = [&] { return model_->reshardTime(sa, sb, bytes); };
            return a >= 0 && b >= 0 ? sized.time(a, b, price) : price();
        };
        distinct.resize(from.ends.size() * to.ends.size());
        for (std::size_t i = 0; i < from.ends.size(); ++i)
            for (std::size_t j = 0; j < to.ends.size(); ++j) {
                const ReshardTime forward = time(fromValue[i], toValue[j], from.ends[i].value, to.ends[j].value);
                const double back =
                    gradient ? time(toGradient[j], fromGradient[i], to.ends[j].gradient, from.ends[i].gradient).seconds
                             : 0;
                distinct[i * to.ends.size() + j] =
                    model_->edgeParts(keeps, forward, back, CostModel::windows(from.ends[i], to.ends[j]));
            }
    }
    // Producer candidate i, consumer candidate j: the pair's row is the lower-numbered op's.
    const bool producerFirst = e.from.value <= e.to.value;
    const std::size_t rowStride = producerFirst ? cw.size() : 1, columnStride = producerFirst ? 1 : cu.size();
    for (std::size_t i = 0; i < cu.size(); ++i) {
        const CostModel::EdgeTimes* row = &distinct[std::size_t(from.groupOf[i]) * to.ends.size()];
        for (std::size_t j = 0; j < cw.size(); ++j) {
            const CostModel::EdgeTimes& t = row[std::size_t(to.groupOf[j])];
            const std::size_t at = i * rowStride + j * columnStride;
            forward[at] += t.forward;
            backward[at] += t.backward;
        }
    }
}

double SearchProblem::objective(const std::vector<int>& choice, double lambda) const {
    double total = 0;
    for (int v = 0; v < size(); ++v)
        total += time(v, choice[std::size_t(v)]) + lambda * memory(v, choice[std::size_t(v)]);
    for (const PairTable& p : pairs_)
        total += p.table()[std::size_t(choice[std::size_t(p.a)]) * std::size_t(choices(p.b)) +
                         std::size_t(choice[std::size_t(p.b)])];
    return total;
}

double SearchProblem::memoryOf(const std::vector<int>& choice) const {
    double total = 0;
    for (int v = 0; v < size(); ++v)
        total += memory(v, choice[std::size_t(v)]);
    return total;
}

double SearchProblem::peakMemory(const std::vector<int>& choice) const {
    double transient = 0;
    for (int v = 0; v < size(); ++v)
        transient = std::max(transient, op(v).transient[std::size_t(choice[std::size_t(v)])]);
    return memoryOf(choice) + transient;
}

double SearchProblem::spaceSize() const {
    double s = 1;
    for (int v = 0; v < size(); ++v)
        s *= static_cast<double>(choices(v));
    return s;
}

} // namespace shardscope
