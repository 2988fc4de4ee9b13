#include "engine/io/measurements_file.h"

#include "engine/io/json_fields.h"

namespace shardscope {

using nlohmann::json;

namespace {

/// A builder override's value as `--set` takes it: strings as they are, numbers and booleans printed.
std::string setValue(const json& v, const JsonFields& in, const std::string& path) {
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_boolean())
        return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer())
        return std::to_string(v.get<long long>());
    in.fail(path, "must be a string, an integer or a boolean");
}

MeasuredRun parseRun(const json& r, const JsonFields& in, const std::string& path, std::size_t index) {
    if (!r.is_object())
        in.fail(path, "must be an object");
    in.checkKnown(r, path,
                  {"name", "model", "set", "nodes", "mesh", "strategy", "batch", "microbatches", "recompute",
                   "attention", "precision", "loss", "overlap", "tp_overlap", "bucket_mb", "schedule", "virtual_stages", "step_time_s"});
    MeasuredRun run;
    run.name = r.contains("name") ? in.string(r, path, "name") : "run " + std::to_string(index + 1);
    run.source = in.source();
    run.model = in.string(r, path, "model");
    if (r.contains("set"))
        for (const auto& [key, value] : in.object(r, path, "set").items())
            run.sets.push_back(key + "=" + setValue(value, in, path + ".set." + key));
    if (r.contains("nodes")) {
        const long long n = in.integer(r, path, "nodes");
        if (n < 1 || n > 1000000)
            in.fail(path + ".nodes", "must be between 1 and 1000000");
        run.nodes = static_cast<int>(n);
    }
    run.mesh = in.string(r, path, "mesh");
    run.strategy = r.contains("strategy") ? in.string(r, path, "strategy") : "dp";
    const long long batch = in.integer(r, path, "batch");
    if (batch < 1 || batch > (1LL << 30))
        in.fail(path + ".batch", "must be between 1 and 2^30");
    run.batch = static_cast<int>(batch);
    if (r.contains("microbatches")) {
        const long long m = in.integer(r, path, "microbatches");
        if (m < 1 || m > batch)
            in.fail(path + ".microbatches", "must be between 1 and the batch");
        run.microbatches = static_cast<int>(m);
    }
    if (r.contains("recompute")) {
        const auto rc = parseRecompute(in.string(r, path, "recompute"));
        if (!rc)
            in.fail(path + ".recompute", "must be none, selective or full");
        run.recompute = *rc;
    }
    run.attention = AttentionKernel::Fused;
    if (r.contains("attention")) {
        const auto a = parseAttention(in.string(r, path, "attention"));
        if (!a)
            in.fail(path + ".attention", "must be fused or unfused");
        run.attention = *a;
    }
    if (r.contains("precision")) {
        const auto p = parsePrecision(in.string(r, path, "precision"));
        if (!p)
            in.fail(path + ".precision", "must be bf16, fp8 or mxfp8");
        run.precision = *p;
    }
    if (r.contains("loss")) {
        const auto l = parseLoss(in.string(r, path, "loss"));
        if (!l)
            in.fail(path + ".loss", "must be unfused or fused");
        run.loss = *l;
    }
    if (r.contains("overlap"))
        run.overlap = in.boolean(r, path, "overlap");
    if (r.contains("tp_overlap"))
    {
        const auto t = parseTpOverlap(in.string(r, path, "tp_overlap"));
        if (!t)
            in.fail(path + ".tp_overlap", "must be off, backward or full");
        run.tpOverlap = *t;
    }
    if (r.contains("schedule")) {
        const auto s = parseSchedule(in.string(r, path, "schedule"));
        if (!s)
            in.fail(path + ".schedule", "must be 1f1b, gpipe or interleaved");
        run.schedule = *s;
    }
    if (r.contains("virtual_stages")) {
        const long long v = in.integer(r, path, "virtual_stages");
        if (v < 1 || v > 1024)
            in.fail(path + ".virtual_stages", "must be between 1 and 1024");
        run.virtualStages = static_cast<int>(v);
    }
    if (r.contains("bucket_mb"))
        run.bucketBytes = in.numberIn(r, path, "bucket_mb", kMinBucketMb, kMaxBucketMb) * 1e6;
    run.measured = in.number(r, path, "step_time_s");
    if (!(run.measured > 0) || run.measured > 1e9)
        in.fail(path + ".step_time_s", "must be a positive number of seconds");
    run.metric = RunMetric::StepSeconds;
    return run;
}

} // namespace

/// The reading itself; parseMeasurementsJson turns stray JSON type errors into input errors.
static std::vector<MeasuredRun> parseMeasurementsJsonUnguarded(const std::string& text, const std::string& source,
                                               const std::string& cluster) {
    const JsonFields in(source);
    const json doc = in.parse(text);
    in.checkHeader(doc, "shardscope-measurements");
    in.checkKnown(doc, "", {"format", "version", "runs"});
    const json& runs = in.array(doc, "", "runs");
    if (runs.empty())
        in.fail("runs", "must list at least one run");
    std::vector<MeasuredRun> out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        out.push_back(parseRun(runs[i], in, "runs[" + std::to_string(i) + "]", i));
        out.back().cluster = cluster;
    }
    return out;
}

std::vector<MeasuredRun> parseMeasurementsJson(const std::string& text, const std::string& source,
                                               const std::string& cluster) {
    return guardJson(source, [&] { return parseMeasurementsJsonUnguarded(text, source, cluster); });
}

std::vector<MeasuredRun> loadMeasurements(const std::string& path, const std::string& cluster) {
    return parseMeasurementsJson(readTextFile(path), path, cluster);
}

} // namespace shardscope
