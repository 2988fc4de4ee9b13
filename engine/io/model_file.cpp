#include "engine/io/model_file.h"

#include "engine/onnx/onnx_import.h"

#include "engine/builders/builders.h"
#include "engine/io/hf_config.h"
#include "engine/io/json_fields.h"
#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <filesystem>
#include <map>

namespace shardscope {

namespace {

using nlohmann::json;

std::vector<TensorId> tensorList(const JsonFields& in, const json& op, const std::string& path, const char* key,
                                 const std::map<std::string, TensorId>& byName) {
    std::vector<TensorId> ids;
    for (const json& name : in.array(op, path, key)) {
        if (!name.is_string())
            in.fail(path + "." + key, "must list tensor names");
        const auto it = byName.find(name.get<std::string>());
        if (it == byName.end())
            in.fail(path + "." + key, "unknown tensor '" + name.get<std::string>() + "'");
        ids.push_back(it->second);
    }
    return ids;
}

} // namespace

/// The reading itself; parseModelDocument turns stray JSON type errors into input errors.
static Graph parseModelDocumentUnguarded(const json& doc, const std::string& source) {
    const JsonFields in(source);
    in.checkHeader(doc, "shardscope-model");
    in.checkKnown(doc, "", {"format", "version", "name", "tensors", "ops"});
    Graph g;
    g.name = doc.contains("name") ? in.string(doc, "", "name") : std::filesystem::path(source).stem().string();
    const json& tensors = in.array(doc, "", "tensors");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const std::string path = "tensors[" + std::to_string(i) + "]";
        const json& t = tensors[i];
        if (!t.is_object())
            in.fail(path, "must be an object");
        in.checkKnown(t, path, {"name", "shape", "dtype", "role"});
        Tensor tensor;
        tensor.name = in.string(t, path, "name");
        for (const json& d : in.array(t, path, "shape")) {
            if (!d.is_number_integer() || d.get<long long>() <= 0)
                in.fail(path + ".shape", "sizes must be positive integers");
            tensor.shape.push_back(d.get<std::int64_t>());
        }
        const std::string dtype = t.contains("dtype") ? in.string(t, path, "dtype") : "bf16";
        const auto dt = parseDType(dtype);
        if (!dt)
            in.fail(path + ".dtype", "unknown dtype '" + dtype + "'");
        tensor.dtype = *dt;
        const std::string role = in.string(t, path, "role");
        const auto r = parseTensorRole(role);
        if (!r)
            in.fail(path + ".role", "unknown role '" + role + "' (input, parameter, activation, constant)");
        tensor.role = *r;
        g.addTensor(std::move(tensor));
    }
    std::map<std::string, TensorId> lookup;
    for (std::size_t t = 0; t < g.tensors().size(); ++t)
        lookup.emplace(g.tensors()[t].name, TensorId(t));
    const json& ops = in.array(doc, "", "ops");
    if (std::int64_t(ops.size()) > kMaxOps)
        in.fail("ops", std::to_string(ops.size()) + " ops: more than the limit of " + withSeparators(kMaxOps));
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const json& o = ops[i];
        if (!o.is_object())
            in.fail("ops[" + std::to_string(i) + "]", "must be an object");
        const std::string name = in.string(o, "ops[" + std::to_string(i) + "]", "name");
        const std::string path = "ops[" + std::to_string(i) + "] '" + name + "'";
        in.checkKnown(o, path, {"name", "kind", "inputs", "outputs", "rule", "block", "flops", "hints", "attention_core",
                                        "causal", "window"});
        Op op;
        op.name = name;
        const std::string kind = in.string(o, path, "kind");
        const auto k = parseOpKind(kind);
        if (!k) {
            std::string known;
            for (auto n : opKindNames())
                known += (known.empty() ? "" : ", ") + std::string(n);
            in.fail(path + ".kind", "unknown op kind '" + kind + "' (known: " + known + ")");
        }
        op.kind = *k;
        op.inputs = tensorList(in, o, path, "inputs", lookup);
        op.outputs = tensorList(in, o, path, "outputs", lookup);
        try {
            op.rule = ShardingRule::parse(in.string(o, path, "rule"));
        } catch (const InputError& e) {
            in.fail(path + ".rule", e.what());
        }
        if (o.contains("block"))
            op.block = in.string(o, path, "block");
        if (o.contains("flops"))
            op.flops = in.number(o, path, "flops");
        if (o.contains("attention_core")) {
            if (!o.at("attention_core").is_boolean())
                in.fail(path + ".attention_core", "must be true or false");
            op.attentionCore = o.at("attention_core").get<bool>();
        }
        if (o.contains("causal")) {
            if (!o.at("causal").is_boolean())
                in.fail(path + ".causal", "must be true or false");
            op.causal = o.at("causal").get<bool>();
        }
        if (o.contains("window")) {
            const long long w = in.integer(o, path, "window");
            if (w < 0)
                in.fail(path + ".window", "must be a key count, 0 for every key");
            op.window = w;
        }
        if (o.contains("hints")) {
            const json& h = in.object(o, path, "hints");
            in.checkKnown(h, path + ".hints", {"batch", "tensor", "sequence", "expert"});
            auto get = [&](const char* key) { return h.contains(key) ? in.string(h, path + ".hints", key) : std::string(); };
            op.hints = OpHints{get("batch"), get("tensor"), get("sequence"), get("expert")};
        }
        g.addOp(std::move(op));
    }
    try {
        g.finalize();
    } catch (const InputError& e) {
        throw InputError(source + ": " + e.what());
    }
    return g;
}

Graph parseModelDocument(const nlohmann::json& doc, const std::string& source) {
    return guardJson(source, [&] { return parseModelDocumentUnguarded(doc, source); });
}

Graph parseModelJson(const std::string& text, const std::string& source) {
    return parseModelDocument(JsonFields(source).parse(text), source);
}

std::string modelToJson(const Graph& g) {
    json doc;
    doc["format"] = "shardscope-model";
    doc["version"] = 1;
    doc["name"] = g.name;
    json tensors = json::array();
    for (const Tensor& t : g.tensors())
        tensors.push_back({{"name", t.name},
                           {"shape", t.shape},
                           {"dtype", std::string(dtypeName(t.dtype))},
                           {"role", std::string(tensorRoleName(t.role))}});
    doc["tensors"] = tensors;
    json ops = json::array();
    for (const Op& op : g.ops()) {
        json o{{"name", op.name}, {"kind", std::string(opKindName(op.kind))}, {"rule", op.rule.toString()}};
        json in = json::array(), out = json::array();
        for (TensorId t : op.inputs)
            in.push_back(g.tensor(t).name);
        for (TensorId t : op.outputs)
            out.push_back(g.tensor(t).name);
        o["inputs"] = in;
        o["outputs"] = out;
        if (!op.block.empty())
            o["block"] = op.block;
        if (op.flops)
            o["flops"] = *op.flops;
        if (op.attentionCore)
            o["attention_core"] = true;
        if (op.causal)
            o["causal"] = true;
        if (op.window > 0)
            o["window"] = op.window;
        json h = json::object();
        if (!op.hints.batch.empty())
            h["batch"] = op.hints.batch;
        if (!op.hints.tensor.empty())
            h["tensor"] = op.hints.tensor;
        if (!op.hints.sequence.empty())
            h["sequence"] = op.hints.sequence;
        if (!op.hints.expert.empty())
            h["expert"] = op.hints.expert;
        if (!h.empty())
            o["hints"] = h;
        ops.push_back(o);
    }
    doc["ops"] = ops;
    return doc.dump(1) + "\n";
}

namespace {

bool isModelFile(const std::string& spec) {
    return spec.find('/') != std::string::npos || spec.find(".json") != std::string::npos ||
           spec.find(".onnx") != std::string::npos;
}

bool isOnnx(const std::string& spec) { return spec.size() >= 5 && spec.substr(spec.size() - 5) == ".onnx"; }

} // namespace

ModelSource readModelSource(const ModelRequest& request) {
    const std::string& spec = request.spec;
    if (spec.empty())
        throw InputError("--model: missing (a preset name, a *.model.json file or a Hugging Face config.json)");
    ModelSource out;
    out.request = request;
    if (!isModelFile(spec)) {
        const ModelPreset& preset = modelPreset(spec);
        out.builder = BuilderModel{preset.family, preset.params, preset.name};
    } else if (isOnnx(spec)) {
        out.onnx = true;
    } else {
        auto doc = std::make_shared<json>(JsonFields(spec).parse(readTextFile(spec)));
        if (doc->is_object() && doc->contains("model_type")) {
            const HfModel hf = parseHfConfig(*doc, spec);
            out.builder = BuilderModel{hf.family, hf.params, hf.name};
        } else {
            out.document = std::move(doc);
        }
    }
    if (out.builder) {
        out.builder->params.apply(request.sets);
        if (request.batch)
            out.builder->params.batch = *request.batch;
    }
    return out;
}

ModelSource ModelSource::withBatch(std::optional<int> batch) const {
    ModelSource out = *this;
    out.request.batch = batch;
    if (out.builder && batch)
        out.builder->params.batch = *batch;
    return out;
}

Graph ModelSource::build(int microbatches) const {
    if (builder)
        return buildModel(builder->family, builder->params, microbatches, builder->name);
    const std::string& spec = request.spec;
    if (onnx)
        return importOnnx(spec, request.sets, request.batch, microbatches).graph;
    if (!request.sets.empty())
        throw InputError("--set applies to presets and Hugging Face configs; " + spec + " fixes its own shapes");
    if (request.batch || microbatches != 1)
        throw InputError("--batch and --microbatches apply to presets and Hugging Face configs; " + spec +
                         " fixes its own batch");
    return parseModelDocument(*document, spec);
}

std::optional<BuilderModel> resolveBuilder(const ModelRequest& request) { return readModelSource(request).builder; }

Graph loadModel(const ModelRequest& request, int microbatches) { return readModelSource(request).build(microbatches); }

} // namespace shardscope
