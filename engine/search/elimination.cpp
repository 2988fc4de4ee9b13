#include "engine/search/elimination.h"

#include "engine/search/dominance.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace shardscope {

Elimination::Elimination(std::vector<int> domains) : domains_(std::move(domains)), incident_(domains_.size()) {}

void Elimination::addFactor(CostTable f) {
    for (int v : f.vars)
        incident_[std::size_t(v)].push_back(factors_.size());
    factors_.push_back(std::move(f));
    alive_.push_back(true);
}

int Elimination::pruneDominated(const std::vector<bool>& keep) {
    std::vector<std::vector<int>> alive = undominatedValues(domains_, factors_, keep);
    int removed = 0;
    for (std::size_t v = 0; v < domains_.size(); ++v)
        removed += domains_[v] - int(alive[v].size());
    if (removed == 0)
        return 0;
    for (std::size_t f = 0; f < factors_.size(); ++f) {
        if (!alive_[f])
            continue;
        const std::vector<int>& vars = factors_[f].vars;
        const std::vector<double>& table = factors_[f].table;
        if (vars.size() == 1) {
            std::vector<double> reduced;
            reduced.reserve(alive[std::size_t(vars[0])].size());
            for (int x : alive[std::size_t(vars[0])])
                reduced.push_back(table[std::size_t(x)]);
            factors_[f].table = std::move(reduced);
            continue;
        }
        if (vars.size() == 2) {
            // Pair tables, the most common: rows of the first variable's survivors, columns of the second's.
            const std::vector<int>& rows = alive[std::size_t(vars[0])];
            const std::vector<int>& cols = alive[std::size_t(vars[1])];
            const std::size_t width = std::size_t(domains_[std::size_t(vars[1])]);
            std::vector<double> reduced;
            reduced.reserve(rows.size() * cols.size());
            for (int x : rows) {
                const double* row = table.data() + std::size_t(x) * width;
                for (int y : cols)
                    reduced.push_back(row[y]);
            }
            factors_[f].table = std::move(reduced);
            continue;
        }
        std::size_t size = 1;
        for (int v : vars)
            size *= alive[std::size_t(v)].size();
        std::vector<double> reduced(size);
        std::vector<std::size_t> digit(vars.size(), 0);
        for (std::size_t row = 0; row < size; ++row) {
            std::size_t from = 0;
            for (std::size_t i = 0; i < vars.size(); ++i)
                from = from * std::size_t(domains_[std::size_t(vars[i])]) + std::size_t(alive[std::size_t(vars[i])][digit[i]]);
            reduced[row] = factors_[f].table[from];
            for (std::size_t i = vars.size(); i-- > 0;) {
                if (++digit[i] < alive[std::size_t(vars[i])].size())
                    break;
                digit[i] = 0;
            }
        }
        factors_[f].table = std::move(reduced);
    }
    for (std::size_t v = 0; v < domains_.size(); ++v)
        domains_[v] = int(alive[v].size());
    values_ = std::move(alive);
    return removed;
}

namespace {

using Graph = std::vector<std::set<int>>;

double tableSize(const std::vector<int>& domains, const std::set<int>& scope, int v) {
    double size = domains[std::size_t(v)];
    for (int u : scope)
        size *= domains[std::size_t(u)];
    return size;
}

Graph interactionGraph(const std::vector<CostTable>& factors, const std::vector<bool>& alive, std::size_t n) {
    Graph adj(n);
    for (std::size_t f = 0; f < factors.size(); ++f) {
        if (!alive[f])
            continue;
        for (int a : factors[f].vars)
            for (int b : factors[f].vars)
                if (a != b)
                    adj[std::size_t(a)].insert(b);
    }
    return adj;
}

/// Removes `v` from the interaction graph, merging its dependent set into its neighbours' (fill-in).
/// Returns the dependent set it had.
std::set<int> eliminateVertex(Graph& adj, int v) {
    const std::set<int> dependents = adj[std::size_t(v)];
    for (int u : dependents) {
        adj[std::size_t(u)].erase(v);
        for (int w : dependents)
            if (w != u)
                adj[std::size_t(u)].insert(w);
    }
    adj[std::size_t(v)].clear();
    return dependents;
}

/// The interaction graph with each vertex's table size kept up to date as vertices go, so the
/// greedy order costs O(fill-in x log n) instead of a scan of every vertex per step (quadratic on a
/// tensor read by thousands of branches). A size is the exact product of domains while it stays
/// below 2^53 (every such product of integers is exact in a double, and so is dividing one factor
/// out); past that the vertex is "saturated" and ranked by its log2 size, far over any table limit.
class GreedyQueue {
public:
    GreedyQueue(Graph adj, const std::vector<int>& domains, const std::vector<bool>& skip)
        : adj_(std::move(adj)), domains_(domains), key_(domains.size()) {
        for (std::size_t v = 0; v < domains.size(); ++v) {
            recompute(int(v));
            if (!skip[v])
                queue_.insert(key_[v]);
        }
        for (std::size_t v = 0; v < domains.size(); ++v)
            if (skip[v])
                key_[v].index = -1;   // kept: never queued, never re-queued
    }

    bool empty() const { return queue_.empty(); }
    /// The vertex with the smallest table (ties: fewer neighbours, then smaller index).
    int top() const { return queue_.begin()->index; }

    /// Eliminates `v` (fill-in), updating its neighbours' sizes.
    void eliminate(int v) {
        queue_.erase(key_[std::size_t(v)]);
        const std::set<int> dependents = adj_[std::size_t(v)];
        for (int u : dependents) {
            const bool queued = key_[std::size_t(u)].index >= 0;
            if (queued)
                queue_.erase(key_[std::size_t(u)]);
            unlink(u, v);
            for (int w : dependents)
                if (w != u && adj_[std::size_t(u)].insert(w).second)
                    grow(u, w);
            settle(u);
            if (queued)
                queue_.insert(key_[std::size_t(u)]);
        }
        adj_[std::size_t(v)].clear();
    }

private:
    static constexpr double kExact = 9007199254740992.0;   // 2^53
    struct Key {
        bool saturated = false;
        double size = 0;          ///< exact product (unsaturated) or log2 of it (saturated)
        double log2Size = 0;
        int degree = 0;
        int index = 0;
        bool operator<(const Key& o) const {
            if (saturated != o.saturated)
                return !saturated;
            if (size != o.size)
                return size < o.size;
            if (degree != o.degree)
                return degree < o.degree;
            return index < o.index;
        }
    };

    void recompute(int v) {
        Key& k = key_[std::size_t(v)];
        k.size = tableSize(domains_, adj_[std::size_t(v)], v);
        k.log2Size = std::log2(double(domains_[std::size_t(v)]));
        for (int u : adj_[std::size_t(v)])
            k.log2Size += std::log2(double(domains_[std::size_t(u)]));
        k.saturated = k.size >= kExact;
        if (k.saturated)
            k.size = k.log2Size;
        k.degree = int(adj_[std::size_t(v)].size());
        if (k.index >= 0)
            k.index = v;
    }
    void grow(int v, int w) {
        Key& k = key_[std::size_t(v)];
        const double d = domains_[std::size_t(w)];
        k.log2Size += std::log2(d);
        ++k.degree;
        if (!k.saturated) {
            k.size *= d;
            if (k.size >= kExact) {
                k.saturated = true;
                k.size = k.log2Size;
            }
        } else {
            k.size = k.log2Size;
        }
    }
    void unlink(int v, int w) {
        if (adj_[std::size_t(v)].erase(w) == 0)
            return;
        Key& k = key_[std::size_t(v)];
        const double d = domains_[std::size_t(w)];
        k.log2Size -= std::log2(d);
        --k.degree;
        if (!k.saturated)
            k.size /= d;
        else
            k.size = k.log2Size;
    }
    /// A saturated vertex whose log size fell well below 53 bits gets its exact size back.
    void settle(int v) {
        const Key& k = key_[std::size_t(v)];
        if (k.saturated && k.log2Size < 50)
            recompute(v);
    }

    Graph adj_;
    const std::vector<int>& domains_;
    std::vector<Key> key_;
    std::set<Key> queue_;
};

} // namespace

std::vector<int> Elimination::greedyOrder(const std::vector<bool>& keep) const {
    GreedyQueue queue(interactionGraph(factors_, alive_, domains_.size()), domains_, keep);
    std::vector<int> order;
    while (!queue.empty()) {
        const int best = queue.top();
        order.push_back(best);
        queue.eliminate(best);
    }
    return order;
}

double Elimination::largestTableOf(const std::vector<int>& order) const {
    Graph adj = interactionGraph(factors_, alive_, domains_.size());
    double largest = 0;
    for (int v : order)
        largest = std::max(largest, tableSize(domains_, eliminateVertex(adj, v), v));
    return largest;
}

CostTable Elimination::withVarFirst(const CostTable& f, int var) const {
    const auto at = std::find(f.vars.begin(), f.vars.end(), var);
    if (at == f.vars.end() || at == f.vars.begin())
        return f;
    // Layout [outer, var, inner] -> [var, outer, inner].
    std::size_t inner = 1;
    for (auto it = at + 1; it != f.vars.end(); ++it)
        inner *= std::size_t(domains_[std::size_t(*it)]);
    const std::size_t k = std::size_t(domains_[std::size_t(var)]);
    const std::size_t outer = f.table.size() / (inner * k);
    CostTable out{f.vars, std::vector<double>(f.table.size())};
    out.vars.erase(out.vars.begin() + (at - f.vars.begin()));
    out.vars.insert(out.vars.begin(), var);
    for (std::size_t x = 0; x < k; ++x)
        for (std::size_t o = 0; o < outer; ++o)
            for (std::size_t i = 0; i < inner; ++i)
                out.table[(x * outer + o) * inner + i] = f.table[(o * k + x) * inner + i];
    return out;
}

CostTable Elimination::combine(const std::vector<const CostTable*>& given, const std::vector<int>& scope, int eliminated,
                               const std::function<bool()>* stop) const {
    // out[row] = min over x of sum_f f[row, x]. For one x, each factor is read through strides over
    // the scope; the scope's last variable (the largest, as in the output) must run contiguously in
    // the factors that have it, so a factor where the eliminated variable comes after it is moved to
    // put the eliminated variable outermost (the others are read where they are). The innermost loop
    // is then an element-wise min(out, t + f1 + ...), which the compiler vectorises, instead of a
    // reduction per row.
    std::vector<CostTable> moved;
    moved.reserve(given.size());
    std::vector<const CostTable*> factors;
    const int lastVar = scope.empty() ? -1 : scope.back();
    for (const CostTable* f : given) {
        const bool hasLastVar = std::find(f->vars.begin(), f->vars.end(), lastVar) != f->vars.end();
        if (eliminated >= 0 && hasLastVar && f->vars.back() != lastVar) {
            moved.push_back(withVarFirst(*f, eliminated));
            factors.push_back(&moved.back());
        } else {
            factors.push_back(f);
        }
    }
    const std::size_t nf = factors.size(), ns = scope.size();
    const std::size_t last = ns > 0 ? std::size_t(domains_[std::size_t(scope.back())]) : 1;
    std::size_t size = 1;
    for (int v : scope)
        size *= std::size_t(domains_[std::size_t(v)]);
    const std::size_t prefixRows = size / last;
    const int kv = eliminated >= 0 ? domains_[std::size_t(eliminated)] : 1;
    // Per factor: its stride for each scope position but the last, for x, and whether it has the last.
    std::vector<std::size_t> stride(nf * ns, 0), strideX(nf, 0);
    std::vector<const CostTable*> withLast, without;
    std::vector<std::size_t> lastIds, otherIds;
    for (std::size_t f = 0; f < nf; ++f) {
        const auto& vars = factors[f]->vars;
        std::size_t s = 1;
        for (std::size_t i = vars.size(); i-- > 0;) {
            const auto pos = std::find(scope.begin(), scope.end(), vars[i]);
            if (pos != scope.end())
                stride[f * ns + std::size_t(pos - scope.begin())] = s;
            else if (vars[i] == eliminated)
                strideX[f] = s;
            s *= std::size_t(domains_[std::size_t(vars[i])]);
        }
        const bool hasLast = ns > 0 && !vars.empty() && vars.back() == scope.back();
        (hasLast ? lastIds : otherIds).push_back(f);
    }
    CostTable out{scope, std::vector<double>(size, kInfinity)};
    std::vector<double> sum(last);
    std::vector<std::size_t> digit(ns, 0), base(nf, 0);
    // Rows outermost, x inside: one output row stays in the first-level cache while every x is
    // folded into it.
    for (std::size_t row = 0; row < prefixRows; ++row) {
        // Large tables take a while: honour a stop request inside them too.
        if (stop && *stop && (row & 0xff) == 0xff && (*stop)()) {
            out.vars.clear();
            out.table.clear();
            return out;
        }
        double* o = out.table.data() + row * last;
        for (int x = 0; x < kv; ++x) {
            double t = 0;
            for (std::size_t f : otherIds)
                t += factors[f]->table[base[f] + std::size_t(x) * strideX[f]];
            if (lastIds.empty()) {
                for (std::size_t j = 0; j < last; ++j)
                    o[j] = std::min(o[j], t);
            } else if (lastIds.size() == 1) {
                const std::size_t f = lastIds[0];
                const double* a = factors[f]->table.data() + base[f] + std::size_t(x) * strideX[f];
                for (std::size_t j = 0; j < last; ++j)
                    o[j] = std::min(o[j], t + a[j]);
            } else {
                const std::size_t f0 = lastIds[0];
                const double* a = factors[f0]->table.data() + base[f0] + std::size_t(x) * strideX[f0];
                for (std::size_t j = 0; j < last; ++j)
                    sum[j] = t + a[j];
                for (std::size_t i = 1; i < lastIds.size(); ++i) {
                    const std::size_t f = lastIds[i];
                    const double* b = factors[f]->table.data() + base[f] + std::size_t(x) * strideX[f];
                    for (std::size_t j = 0; j < last; ++j)
                        sum[j] += b[j];
                }
                for (std::size_t j = 0; j < last; ++j)
                    o[j] = std::min(o[j], sum[j]);
            }
        }
        // Odometer over the scope but its last variable.
        for (std::size_t i = ns > 0 ? ns - 1 : 0; i-- > 0;) {
            for (std::size_t f = 0; f < nf; ++f)
                base[f] += stride[f * ns + i];
            if (++digit[i] < std::size_t(domains_[std::size_t(scope[i])]))
                break;
            for (std::size_t f = 0; f < nf; ++f)
                base[f] -= stride[f * ns + i] * std::size_t(domains_[std::size_t(scope[i])]);
            digit[i] = 0;
        }
    }
    return out;
}

int Elimination::argminOf(const Step& step, std::vector<int>& assignment) const {
    int best = 0;
    double bestValue = kInfinity;
    for (int x = 0; x < domains_[std::size_t(step.var)]; ++x) {
        assignment[std::size_t(step.var)] = x;
        double total = 0;
        for (std::size_t f : step.factors) {
            std::size_t at = 0;
            for (int u : factors_[f].vars)
                at = at * std::size_t(domains_[std::size_t(u)]) + std::size_t(assignment[std::size_t(u)]);
            total += factors_[f].table[at];
        }
        if (total < bestValue) {
            bestValue = total;
            best = x;
        }
    }
    return best;
}

bool Elimination::run(const std::vector<int>& order, const std::function<bool()>& stop) {
    for (int v : order) {
        if (stop && stop())
            return false;
        std::vector<const CostTable*> involved;
        std::vector<std::size_t> ids;
        std::set<int> scopeSet;
        for (std::size_t f : incident_[std::size_t(v)]) {
            if (!alive_[f])
                continue;
            const auto& vars = factors_[f].vars;
            involved.push_back(&factors_[f]);
            ids.push_back(f);
            scopeSet.insert(vars.begin(), vars.end());
        }
        scopeSet.erase(v);
        Step step{v, std::vector<int>(scopeSet.begin(), scopeSet.end()), ids};
        CostTable reduced = combine(involved, step.scope, v, &stop);
        if (reduced.table.empty())
            return false;
        const double states = double(reduced.table.size()) * domains_[std::size_t(v)];
        stats_.states += states;
        stats_.largestTable = std::max(stats_.largestTable, states);
        stats_.largestDependentSet = std::max(stats_.largestDependentSet, int(step.scope.size()));
        for (std::size_t f : ids)
            alive_[f] = false;
        steps_.push_back(std::move(step));
        addFactor(std::move(reduced));
    }
    return true;
}

CostTable Elimination::remaining() const {
    std::vector<const CostTable*> left;
    std::set<int> scope;
    for (std::size_t f = 0; f < factors_.size(); ++f)
        if (alive_[f]) {
            left.push_back(&factors_[f]);
            scope.insert(factors_[f].vars.begin(), factors_[f].vars.end());
        }
    return combine(left, std::vector<int>(scope.begin(), scope.end()), -1);
}

void Elimination::backSubstitute(std::vector<int>& assignment) const {
    // Kept variables keep every value, so their indices are the same before and after pruning.
    // The argmins are recomputed from the factors each step summed (cheaper than storing one per row).
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it)
        assignment[std::size_t(it->var)] = argminOf(*it, assignment);
    if (values_.empty())
        return;
    for (const Step& step : steps_)
        assignment[std::size_t(step.var)] = values_[std::size_t(step.var)][std::size_t(assignment[std::size_t(step.var)])];
}

} // namespace shardscope
