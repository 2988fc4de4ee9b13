#include "engine/fidelity/calibration.h"

#include "engine/util/error.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>

namespace shardscope {

namespace {

/// A fitted quantity of a cluster: where it lives and its upper bound.
struct Knob {
    std::string name;
    std::function<double&(Cluster&)> at;
    double max = 1e300;
};

std::vector<Knob> knobs(const Cluster& c) {
    std::vector<Knob> k{{"device.efficiency", [](Cluster& x) -> double& { return x.device.efficiency; }, 1.0},
                        {"device.attention_efficiency",
                         [](Cluster& x) -> double& { return x.device.attentionEfficiency; }, 1.0},
                        // Its own group ("dropout"): only runs with dropout in a fused attention kernel
                        // depend on it.
                        {"device.attention_dropout_efficiency",
                         [](Cluster& x) -> double& { return x.device.attentionDropoutEfficiency; }, 1.0},
                        {"device.memory_efficiency",
                         [](Cluster& x) -> double& { return x.device.memoryEfficiency; }, 1.0},
                        // Its own group ("fp8"): only FP8 runs depend on it.
                        {"device.fp8_efficiency", [](Cluster& x) -> double& { return x.device.fp8Efficiency; }, 1.0},
                        // Its own group ("overlap"): the efficiencies fit without it.
                        {"device.overlap_slowdown",
                         [](Cluster& x) -> double& { return x.device.overlapSlowdown; }, 4.0}};
    // A link's achieved fraction stays at most its specification: collectives measured faster than
    // that hide communication the model does not price, which is not the link's doing.
    for (std::size_t i = 0; i < c.levels.size(); ++i) {
        const std::string level = "levels[" + std::to_string(i) + "]";
        k.push_back({level + ".efficiency", [i](Cluster& x) -> double& { return x.levels[i].efficiency; }, 1.0});
        k.push_back({level + ".latency", [i](Cluster& x) -> double& { return x.levels[i].latency; }});
        k.push_back({level + ".base_latency", [i](Cluster& x) -> double& { return x.levels[i].baseLatency; }});
    }
    return k;
}

/// The knobs of `c` that `fit` selects (calibrate()).
std::vector<Knob> selected(const Cluster& c, const std::vector<std::string>& fit) {
    std::vector<Knob> all = knobs(c);
    if (fit.empty())
        return all;
    for (const std::string& name : fit) {
        const bool known = name == "device" || name == "links" || name == "overlap" || name == "fp8" || name == "dropout" ||
                           std::any_of(all.begin(), all.end(), [&](const Knob& k) { return k.name == name; });
        if (!known) {
            std::string names = "device, links, overlap, fp8, dropout";
            for (const Knob& k : all)
                names += ", " + k.name;
            throw InputError("calibrate: '" + name + "' is not a parameter (" + names + ")");
        }
    }
    std::vector<Knob> out;
    for (Knob& k : all) {
        const char* group = k.name == "device.overlap_slowdown" ? "overlap"
                            : k.name == "device.fp8_efficiency" ? "fp8"
                            : k.name == "device.attention_dropout_efficiency" ? "dropout"
                            : k.name.rfind("device.", 0) == 0  ? "device"
                                                               : "links";
        if (std::find(fit.begin(), fit.end(), k.name) != fit.end() || std::find(fit.begin(), fit.end(), group) != fit.end())
            out.push_back(std::move(k));
    }
    return out;
}

/// The cluster with parameters exp(logs).
Cluster apply(Cluster c, const std::vector<Knob>& k, const Eigen::VectorXd& logs) {
    for (std::size_t i = 0; i < k.size(); ++i)
        k[i].at(c) = std::min(std::exp(logs[Eigen::Index(i)]), k[i].max);
    return c;
}

std::vector<double> stepTimes(const Cluster& c, const std::vector<MeasuredRun>& runs) {
    std::vector<double> t;
    for (const MeasuredRun& r : runs)
        t.push_back(predictRun(r, c).stepTime);
    return t;
}

constexpr double kMeasurementSigma = 0.02; ///< repeated runs' step times agree within about 2%
constexpr double kPriorSigma = 0.5;        ///< a parameter moves by a factor of e^0.5 = 1.65 at one sigma

/// The weighted residuals: per run log(predicted / measured) / kMeasurementSigma, then per parameter
/// its log-distance from the start / kPriorSigma (a prior at the start cluster, so that parameters
/// the runs cannot tell apart stay near their starting values instead of wandering off).
Eigen::VectorXd residuals(const std::vector<double>& predicted, const std::vector<MeasuredRun>& runs,
                          const Eigen::VectorXd& logs, const Eigen::VectorXd& start) {
    const Eigen::Index n = Eigen::Index(runs.size());
    Eigen::VectorXd r(n + logs.size());
    for (Eigen::Index i = 0; i < n; ++i)
        r[i] = std::log(predicted[std::size_t(i)] / runs[std::size_t(i)].measured) / kMeasurementSigma;
    r.tail(logs.size()) = (logs - start) / kPriorSigma;
    return r;
}

} // namespace

std::vector<std::string> calibrationParameters(const Cluster& cluster) {
    std::vector<std::string> names;
    for (const Knob& k : knobs(cluster))
        names.push_back(k.name);
    return names;
}

Calibration calibrate(const Cluster& start, const std::vector<MeasuredRun>& runs, const std::vector<std::string>& fit,
                      std::stop_token stop, const CalibrationProgress& progress) {
    for (const MeasuredRun& r : runs)
        if (r.metric != RunMetric::StepSeconds)
            throw InputError("run '" + r.name + "': calibration fits step times in seconds");
    Cluster base = start;
    const std::vector<Knob> k = selected(base, fit);
    const Eigen::Index n = Eigen::Index(k.size());
    Eigen::VectorXd logs(n);
    for (Eigen::Index i = 0; i < n; ++i)
        logs[i] = std::log(std::max(k[std::size_t(i)].at(base), 1e-9)); // a zero latency starts at 1 ns

    Calibration out;
    out.before = stepTimes(start, runs);
    const Eigen::VectorXd start0 = logs;
    auto residualsAt = [&](const Eigen::VectorXd& at) {
        return residuals(stepTimes(apply(base, k, at), runs), runs, at, start0);
    };
    Eigen::VectorXd r = residualsAt(logs);
    double cost = r.squaredNorm();
    double mu = 1e-3;
    const double h = 1e-4; // finite-difference step on log scale
    for (int it = 0; it < 60 && cost > 1e-20; ++it) {
        Eigen::MatrixXd J(r.size(), n);
        for (Eigen::Index j = 0; j < n; ++j) {
            Eigen::VectorXd moved = logs;
            moved[j] += h;
            J.col(j) = (residualsAt(moved) - r) / h;
        }
        const Eigen::MatrixXd JtJ = J.transpose() * J;
        const Eigen::VectorXd g = J.transpose() * r;
        bool improved = false;
        while (mu < 1e12) {
            Eigen::MatrixXd A = JtJ;
            for (Eigen::Index j = 0; j < n; ++j)
                A(j, j) += mu * (JtJ(j, j) + 1e-12);
            Eigen::VectorXd next = logs - A.ldlt().solve(g);
            for (Eigen::Index j = 0; j < n; ++j)
                next[j] = std::min(next[j], std::log(k[std::size_t(j)].max));
            const Eigen::VectorXd rn = residualsAt(next);
            if (rn.squaredNorm() < cost) {
                const double gain = cost - rn.squaredNorm();
                logs = next;
                r = rn;
                cost = rn.squaredNorm();
                mu = std::max(mu / 3, 1e-9);
                improved = gain > 1e-14 * (1 + cost);
                break;
            }
            mu *= 4;
        }
        out.iterations = it + 1;
        if (progress)
            progress(out.iterations, cost);
        if (!improved)
            break;
        if (stop.stop_requested()) {
            out.cancelled = true;
            break;
        }
    }
    out.cluster = apply(base, k, logs);
    for (std::size_t i = 0; i < k.size(); ++i)
        out.parameters.push_back({k[i].name, k[i].at(base), k[i].at(out.cluster)});
    out.after = stepTimes(out.cluster, runs);
    return out;
}

} // namespace shardscope
