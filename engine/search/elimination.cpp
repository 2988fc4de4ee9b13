#include "engine/search/elimination.h"

#include <algorithm>
#include <set>

namespace shardscope {

Elimination::Elimination(std::vector<int> domains) : domains_(std::move(domains)) {}

void Elimination::addFactor(CostTable f) {
    factors_.push_back(std::move(f));
    alive_.push_back(true);
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

} // namespace

std::vector<int> Elimination::greedyOrder(const std::vector<bool>& keep) const {
    Graph adj = interactionGraph(factors_, alive_, domains_.size());
    std::vector<bool> done(domains_.size(), false);
    std::vector<int> order;
    for (;;) {
        int best = -1;
        double bestSize = 0;
        for (std::size_t v = 0; v < domains_.size(); ++v) {
            if (done[v] || keep[v])
                continue;
            const double size = tableSize(domains_, adj[v], int(v));
            if (best < 0 || size < bestSize ||
                (size == bestSize && adj[v].size() < adj[std::size_t(best)].size())) {
                best = int(v);
                bestSize = size;
            }
        }
        if (best < 0)
            return order;
        order.push_back(best);
        done[std::size_t(best)] = true;
        eliminateVertex(adj, best);
    }
}

double Elimination::largestTableOf(const std::vector<int>& order) const {
    Graph adj = interactionGraph(factors_, alive_, domains_.size());
    double largest = 0;
    for (int v : order)
        largest = std::max(largest, tableSize(domains_, eliminateVertex(adj, v), v));
    return largest;
}

CostTable Elimination::combine(const std::vector<const CostTable*>& factors, const std::vector<int>& scope, int eliminated,
                            std::vector<int>* argmin, const std::function<bool()>* stop) const {
    // Strides of every factor for each scope position and for the eliminated variable.
    const std::size_t nf = factors.size(), ns = scope.size();
    std::vector<std::size_t> stride(nf * (ns + 1), 0);
    for (std::size_t f = 0; f < nf; ++f) {
        const auto& vars = factors[f]->vars;
        std::size_t s = 1;
        for (std::size_t i = vars.size(); i-- > 0;) {
            const auto pos = std::find(scope.begin(), scope.end(), vars[i]);
            if (pos != scope.end())
                stride[f * (ns + 1) + std::size_t(pos - scope.begin())] = s;
            else if (vars[i] == eliminated)
                stride[f * (ns + 1) + ns] = s;
            s *= std::size_t(domains_[std::size_t(vars[i])]);
        }
    }
    std::size_t size = 1;
    for (int v : scope)
        size *= std::size_t(domains_[std::size_t(v)]);
    const int kv = eliminated >= 0 ? domains_[std::size_t(eliminated)] : 1;
    CostTable out{scope, std::vector<double>(size, kInfinity)};
    if (argmin)
        argmin->assign(size, 0);
    std::vector<int> digit(ns, 0);
    std::vector<std::size_t> base(nf, 0);
    std::vector<double> acc(std::size_t(kv), 0.0);
    for (std::size_t row = 0; row < size; ++row) {
        // Large tables take a while: honour a stop request inside them too.
        if (stop && *stop && (row & 0xfff) == 0xfff && (*stop)()) {
            out.vars.clear();
            out.table.clear();
            return out;
        }
        // Sum the factors over the eliminated variable's values, one factor at a time (the inner loop
        // is contiguous for a factor whose last variable is the eliminated one).
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::size_t f = 0; f < nf; ++f) {
            const double* t = factors[f]->table.data() + base[f];
            const std::size_t sv = stride[f * (ns + 1) + ns];
            if (sv == 1)
                for (int x = 0; x < kv; ++x)
                    acc[std::size_t(x)] += t[x];
            else
                for (int x = 0; x < kv; ++x)
                    acc[std::size_t(x)] += t[std::size_t(x) * sv];
        }
        double best = kInfinity;
        int arg = 0;
        for (int x = 0; x < kv; ++x)
            if (acc[std::size_t(x)] < best) {
                best = acc[std::size_t(x)];
                arg = x;
            }
        out.table[row] = best;
        if (argmin)
            (*argmin)[row] = arg;
        // Odometer over the scope, last variable fastest.
        for (std::size_t i = ns; i-- > 0;) {
            for (std::size_t f = 0; f < nf; ++f)
                base[f] += stride[f * (ns + 1) + i];
            if (++digit[i] < domains_[std::size_t(scope[i])])
                break;
            for (std::size_t f = 0; f < nf; ++f)
                base[f] -= stride[f * (ns + 1) + i] * std::size_t(domains_[std::size_t(scope[i])]);
            digit[i] = 0;
        }
    }
    return out;
}

bool Elimination::run(const std::vector<int>& order, const std::function<bool()>& stop) {
    for (int v : order) {
        if (stop && stop())
            return false;
        std::vector<const CostTable*> involved;
        std::vector<std::size_t> ids;
        std::set<int> scopeSet;
        for (std::size_t f = 0; f < factors_.size(); ++f) {
            if (!alive_[f])
                continue;
            const auto& vars = factors_[f].vars;
            if (std::find(vars.begin(), vars.end(), v) == vars.end())
                continue;
            involved.push_back(&factors_[f]);
            ids.push_back(f);
            scopeSet.insert(vars.begin(), vars.end());
        }
        scopeSet.erase(v);
        Step step{v, std::vector<int>(scopeSet.begin(), scopeSet.end()), {}};
        CostTable reduced = combine(involved, step.scope, v, &step.argmin, &stop);
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
    return combine(left, std::vector<int>(scope.begin(), scope.end()), -1, nullptr);
}

void Elimination::backSubstitute(std::vector<int>& assignment) const {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
        std::size_t row = 0;
        for (int u : it->scope)
            row = row * std::size_t(domains_[std::size_t(u)]) + std::size_t(assignment[std::size_t(u)]);
        assignment[std::size_t(it->var)] = it->argmin[row];
    }
}

} // namespace shardscope
