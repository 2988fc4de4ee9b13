#include "engine/onnx/onnx_reader.h"

#include "engine/onnx/shape_constants.h"
#include "engine/util/error.h"
#include "engine/util/limits.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

namespace shardscope::onnx_import {

namespace {

constexpr std::size_t kMaxFileBytes = std::size_t(2) << 30; // protobuf's own limit

class Reader {
public:
    Reader(std::string path, const DimBindings& bindings) : path_(std::move(path)), bindings_(bindings) {}

    OnnxGraph run() {
        parse();
        checkTopology();
        bindInputs();
        foldShapes();
        return build();
    }

private:
    std::string path_;
    const DimBindings& bindings_;
    onnx::ModelProto model_;
    std::set<std::string> initializers_;
    std::map<std::string, ValueKind> kinds_;
    std::map<std::string, std::vector<std::int64_t>> shapes_; ///< -1 for an unknown dimension
    std::map<std::string, int> elemTypes_;
    std::map<std::string, IntTensor> ints_;
    int folded_ = 0;

    [[noreturn]] void fail(const std::string& what) const { throw InputError(path_ + ": " + what); }

    static std::string nodeText(const onnx::NodeProto& n) {
        return "node '" + (n.name().empty() ? n.output_size() ? n.output(0) : std::string("?") : n.name()).substr(0, 80) +
               "' (" + n.op_type().substr(0, 40) + ")";
    }

    void parse() {
        std::error_code ec;
        const auto status = std::filesystem::status(path_, ec);
        if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
            fail("not a regular file (a directory, device or pipe)");
        if (!ec && std::filesystem::is_regular_file(status) && std::filesystem::file_size(path_, ec) >= kMaxFileBytes)
            fail("larger than 2 GiB; save the weights as external data (onnx.save_model(..., save_as_external_data=True))");
        std::ifstream in(path_, std::ios::binary);
        if (!in)
            fail("cannot read");
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (bytes.size() >= kMaxFileBytes)
            fail("larger than 2 GiB; save the weights as external data (onnx.save_model(..., save_as_external_data=True))");
        if (!model_.ParseFromString(bytes))
            fail("not an ONNX model (the protobuf does not parse)");
        if (!model_.has_graph() || model_.graph().node_size() == 0)
            fail("not an ONNX model with a graph (no nodes)");
        if (model_.graph().node_size() > 4 * kMaxOps)
            fail(std::to_string(model_.graph().node_size()) + " nodes: more than the limit of " +
                 withSeparators(4 * kMaxOps) + " (constants and shape nodes included)");
        for (const onnx::TensorProto& t : model_.graph().initializer())
            initializers_.insert(t.name());
    }

    /// Every input produced once, before its readers; nodes sorted topologically (files may not be).
    void checkTopology() {
        onnx::GraphProto& g = *model_.mutable_graph();
        std::map<std::string, int> producer; // value -> node, -1 for inputs and initializers
        for (const onnx::ValueInfoProto& v : g.input())
            producer[v.name()] = -1;
        for (const std::string& t : initializers_)
            producer[t] = -1;
        for (int i = 0; i < g.node_size(); ++i)
            for (const std::string& o : g.node(i).output())
                if (!o.empty() && !producer.emplace(o, i).second)
                    fail(nodeText(g.node(i)) + " writes '" + o.substr(0, 80) + "', which another node or input already defines");
        std::vector<int> waiting(std::size_t(g.node_size()), 0);
        std::vector<std::vector<int>> readers(std::size_t(g.node_size()));
        for (int i = 0; i < g.node_size(); ++i)
            for (const std::string& in : g.node(i).input()) {
                if (in.empty())
                    continue;
                const auto p = producer.find(in);
                if (p == producer.end())
                    fail(nodeText(g.node(i)) + " reads '" + in.substr(0, 80) + "', which no node, input or initializer produces");
                if (p->second >= 0) {
                    ++waiting[std::size_t(i)];
                    readers[std::size_t(p->second)].push_back(i);
                }
            }
        std::vector<int> order, ready;
        for (int i = 0; i < g.node_size(); ++i)
            if (waiting[std::size_t(i)] == 0)
                ready.push_back(i);
        for (std::size_t k = 0; k < ready.size(); ++k) {
            order.push_back(ready[k]);
            for (int r : readers[std::size_t(ready[k])])
                if (--waiting[std::size_t(r)] == 0)
                    ready.push_back(r);
        }
        if (order.size() != std::size_t(g.node_size()))
            for (int i = 0; i < g.node_size(); ++i)
                if (waiting[std::size_t(i)] > 0)
                    fail("the nodes form a cycle through " + nodeText(g.node(i)));
        google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
        for (int i : order)
            *sorted.Add() = g.node(i);
        g.mutable_node()->Swap(&sorted);
    }

    /// Gives every symbolic dimension of the data inputs its bound value.
    void bindInputs() {
        std::string unbound;
        std::map<std::string, std::int64_t> resolved;
        bool first = true;
        for (onnx::ValueInfoProto& v : *model_.mutable_graph()->mutable_input()) {
            if (initializers_.count(v.name()))
                continue;
            if (!v.type().has_tensor_type())
                fail("input '" + v.name().substr(0, 80) + "' is not a tensor");
            onnx::TensorShapeProto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
            for (int d = 0; d < shape->dim_size(); ++d) {
                onnx::TensorShapeProto_Dimension* dim = shape->mutable_dim(d);
                if (dim->has_dim_value()) {
                    if (dim->dim_value() < 1)
                        fail("input '" + v.name().substr(0, 80) + "' dimension " + std::to_string(d) + " is " +
                             std::to_string(dim->dim_value()) + "; sizes must be positive");
                    continue;
                }
                const std::string param = dim->has_dim_param() ? dim->dim_param() : std::string();
                auto bound = bindings_.find(param);
                if (bound == bindings_.end() && first && d == 0)
                    bound = bindings_.find("batch");
                if (bound == bindings_.end() && first && d == 1)
                    bound = bindings_.find("seq");
                if (bound == bindings_.end()) {
                    unbound += std::string(unbound.empty() ? "" : "; ") + "input '" + v.name().substr(0, 60) +
                               "' dimension " + std::to_string(d) +
                               (param.empty() ? std::string(" has no size") : " is '" + param.substr(0, 40) + "'");
                    continue;
                }
                if (!param.empty())
                    resolved[param] = bound->second;
                dim->clear_dim_param();
                dim->set_dim_value(bound->second);
            }
            first = false;
        }
        // The same symbols elsewhere (value_info, outputs) take the same values.
        auto bindAll = [&](google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos) {
            for (onnx::ValueInfoProto& v : infos)
                if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
                    for (auto& dim : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
                        if (dim.has_dim_param() && resolved.count(dim.dim_param())) {
                            const std::int64_t value = resolved[dim.dim_param()];
                            dim.clear_dim_param();
                            dim.set_dim_value(value);
                        }
        };
        bindAll(*model_.mutable_graph()->mutable_value_info());
        bindAll(*model_.mutable_graph()->mutable_output());
        if (!unbound.empty())
            fail("symbolic dimensions left unbound: " + unbound +
                 " (bind them as NAME=N: --set in the CLI, the Open Model dialog's settings in the window; batch=N and "
                 "seq=N bind the first input's first two)");
    }

    /// The opset of the default domain.
    std::unordered_map<std::string, int> opsets() const {
        std::unordered_map<std::string, int> out;
        for (const onnx::OperatorSetIdProto& o : model_.opset_import())
            out[o.domain().empty() ? std::string("") : o.domain()] = int(o.version());
        if (out.empty())
            out[""] = 13;
        return out;
    }

    void readShapes() {
        shapes_.clear();
        auto take = [&](const onnx::ValueInfoProto& v) {
            if (!v.type().has_tensor_type())
                return;
            elemTypes_[v.name()] = v.type().tensor_type().elem_type();
            if (!v.type().tensor_type().has_shape())
                return;
            std::vector<std::int64_t> s;
            for (const auto& d : v.type().tensor_type().shape().dim())
                s.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : -1);
            shapes_[v.name()] = s;
        };
        const onnx::GraphProto& g = model_.graph();
        for (const auto& v : g.input())
            take(v);
        for (const auto& v : g.value_info())
            take(v);
        for (const auto& v : g.output())
            take(v);
        for (const onnx::TensorProto& t : g.initializer()) {
            shapes_[t.name()] = std::vector<std::int64_t>(t.dims().begin(), t.dims().end());
            elemTypes_[t.name()] = t.data_type();
        }
    }

    static bool isFloating(int elemType) {
        return elemType == onnx::TensorProto_DataType_FLOAT || elemType == onnx::TensorProto_DataType_DOUBLE ||
               elemType == onnx::TensorProto_DataType_FLOAT16 || elemType == onnx::TensorProto_DataType_BFLOAT16 ||
               elemType == onnx::TensorProto_DataType_UNDEFINED;
    }

    /// Data, parameter or constant, for every value in topological order (see onnx_graph.h).
    void classify() {
        kinds_.clear();
        const onnx::GraphProto& g = model_.graph();
        for (const auto& v : g.input())
            if (!initializers_.count(v.name()))
                kinds_[v.name()] = ValueKind::Data;
        for (const onnx::TensorProto& t : g.initializer())
            kinds_[t.name()] = isFloating(t.data_type()) ? ValueKind::Parameter : ValueKind::Constant;
        for (const onnx::NodeProto& n : g.node()) {
            int data = 0, params = 0;
            for (const std::string& in : n.input()) {
                if (in.empty())
                    continue;
                data += kinds_[in] == ValueKind::Data;
                params += kinds_[in] == ValueKind::Parameter;
            }
            ValueKind out = ValueKind::Constant;
            if (n.op_type() == "Shape" || n.op_type() == "Size")
                out = ValueKind::Constant;
            else if (data > 0)
                out = ValueKind::Data;
            else if (params > 0)
                out = params == 1 && isParameterAlias(n.op_type()) ? ValueKind::Parameter : ValueKind::Data;
            for (const std::string& o : n.output())
                if (!o.empty())
                    kinds_[o] = out;
        }
    }

    /// Alternates shape inference with folding evaluated constant nodes into initializers.
    void foldShapes() {
        const auto opsetMap = opsets();
        for (int round = 0; round < 10000; ++round) {
            try {
                onnx::ShapeInferenceOptions options{false, 0, false};
                onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(), options);
            } catch (const std::exception& e) {
                fail(std::string("shape inference failed: ") + std::string(e.what()).substr(0, 200));
            }
            readShapes();
            classify();
            evaluateConstants(model_.graph(), initializers_, shapes_, kinds_, ints_);
            if (!foldEvaluated())
                return;
        }
    }

    /// Replaces every constant node whose outputs were all evaluated by initializers. True if any.
    bool foldEvaluated() {
        onnx::GraphProto& g = *model_.mutable_graph();
        google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
        bool any = false;
        for (const onnx::NodeProto& n : g.node()) {
            bool all = n.output_size() > 0;
            for (const std::string& o : n.output())
                all = all && (o.empty() || (kinds_[o] == ValueKind::Constant && ints_.count(o)));
            if (!all) {
                *kept.Add() = n;
                continue;
            }
            any = true;
            ++folded_;
            for (const std::string& o : n.output()) {
                if (o.empty())
                    continue;
                const IntTensor& t = ints_.at(o);
                onnx::TensorProto* init = g.add_initializer();
                init->set_name(o);
                init->set_data_type(onnx::TensorProto_DataType_INT64);
                for (std::int64_t d : t.shape)
                    init->add_dims(d);
                for (std::int64_t x : t.values)
                    init->add_int64_data(x);
                initializers_.insert(o);
            }
        }
        g.mutable_node()->Swap(&kept);
        return any;
    }

    OnnxGraph build() {
        readShapes();
        classify();
        OnnxGraph out;
        out.name = model_.graph().name().empty() ? std::string("onnx") : model_.graph().name();
        out.foldedNodes = folded_;
        out.opset = opsets().count("") ? opsets().at("") : 13;
        std::set<std::string> used;
        for (const auto& o : model_.graph().output())
            used.insert(o.name());
        for (const onnx::NodeProto& n : model_.graph().node())
            for (const std::string& in : n.input())
                used.insert(in);
        auto addValue = [&](const std::string& name) {
            if (name.empty() || out.values.count(name))
                return;
            OnnxValue v;
            v.name = name;
            v.kind = kinds_.count(name) ? kinds_[name] : ValueKind::Constant;
            const int type = elemTypes_.count(name) ? elemTypes_[name] : 0;
            v.floating = isFloating(type);
            v.dtype = dtypeOf(type);
            if (shapes_.count(name))
                v.shape = shapes_[name];
            if (ints_.count(name)) {
                v.ints = ints_[name].values;
                v.hasInts = true;
            }
            out.values.emplace(name, std::move(v));
        };
        for (const auto& v : model_.graph().input())
            if (!initializers_.count(v.name())) {
                out.inputs.push_back(v.name());
                addValue(v.name());
            }
        std::set<std::string> names;
        int index = 0;
        for (const onnx::NodeProto& n : model_.graph().node()) {
            ++index;
            bool data = false;
            for (const std::string& o : n.output())
                data = data || (!o.empty() && kinds_[o] == ValueKind::Data);
            if (!data) {
                ++out.foldedNodes;
                if (n.output_size() && kinds_[n.output(0)] == ValueKind::Parameter)
                    aliasParameter(n, out);
                continue;
            }
            OnnxNode node;
            node.opType = n.op_type();
            node.name = n.name().empty() || names.count(n.name()) ? n.op_type() + "_" + std::to_string(index) : n.name();
            names.insert(node.name);
            for (const std::string& in : n.input()) {
                node.inputs.push_back(in);
                addValue(in);
            }
            for (const std::string& o : n.output()) {
                node.outputs.push_back(used.count(o) ? o : std::string());
                if (!o.empty() && used.count(o)) {
                    addValue(o);
                    const auto& s = out.values.at(o).shape;
                    if (s.empty() && !shapes_.count(o))
                        fail("cannot infer the shape of '" + o.substr(0, 80) + "' written by " + nodeText(n));
                    for (std::int64_t d : s)
                        if (d < 1)
                            fail("cannot infer the shape of '" + o.substr(0, 80) + "' written by " + nodeText(n) +
                                 " (a dimension is unknown)");
                }
            }
            for (const auto& a : n.attribute()) {
                OnnxAttribute attr;
                attr.i = a.i();
                attr.f = a.f();
                attr.s = a.s();
                attr.ints.assign(a.ints().begin(), a.ints().end());
                node.attributes[a.name()] = attr;
            }
            out.nodes.push_back(std::move(node));
        }
        return out;
    }

    /// A Transpose, Identity or Cast of a parameter: the output is that parameter seen permuted.
    void aliasParameter(const onnx::NodeProto& n, OnnxGraph& out) {
        std::string source;
        for (const std::string& in : n.input())
            if (!in.empty() && kinds_[in] == ValueKind::Parameter)
                source = in;
        OnnxValue v;
        v.name = n.output(0);
        v.kind = ValueKind::Parameter;
        v.shape = shapes_.count(v.name) ? shapes_[v.name] : std::vector<std::int64_t>{};
        v.floating = true;
        v.dtype = dtypeOf(elemTypes_.count(source) ? elemTypes_[source] : 0);
        std::vector<std::int64_t> perm;
        if (n.op_type() == "Transpose")
            for (const auto& a : n.attribute())
                if (a.name() == "perm")
                    perm.assign(a.ints().begin(), a.ints().end());
        const auto& srcShape = shapes_[source];
        if (perm.empty() && n.op_type() == "Transpose")
            for (std::size_t d = srcShape.size(); d-- > 0;)
                perm.push_back(std::int64_t(d));
        // A chain of aliases composes: the source's own source and permutation.
        const auto prior = out.aliases.find(source);
        std::string root = source;
        std::vector<std::int64_t> rootPerm(perm);
        if (prior != out.aliases.end()) {
            root = prior->second.source;
            const auto& p0 = prior->second.perm;
            if (!p0.empty()) {
                rootPerm.clear();
                const std::vector<std::int64_t> p1 = perm.empty() ? identity(p0.size()) : perm;
                for (std::int64_t j : p1)
                    rootPerm.push_back(p0[std::size_t(j)]);
            }
        }
        out.aliases[v.name] = ParameterAlias{root, rootPerm};
        out.values[v.name] = std::move(v);
        if (!out.values.count(root)) {
            OnnxValue r;
            r.name = root;
            r.kind = ValueKind::Parameter;
            r.shape = shapes_[root];
            r.dtype = dtypeOf(elemTypes_.count(root) ? elemTypes_[root] : 0);
            out.values[root] = std::move(r);
        }
    }

    static std::vector<std::int64_t> identity(std::size_t n) {
        std::vector<std::int64_t> p(n);
        for (std::size_t k = 0; k < n; ++k)
            p[k] = std::int64_t(k);
        return p;
    }

    static bool isParameterAlias(const std::string& op) { return op == "Transpose" || op == "Identity" || op == "Cast"; }

    static DType dtypeOf(int type) {
        switch (type) {
        case onnx::TensorProto_DataType_FLOAT16:
            return DType::FP16;
        case onnx::TensorProto_DataType_INT64:
            return DType::INT64;
        case onnx::TensorProto_DataType_FLOAT:
        case onnx::TensorProto_DataType_DOUBLE:
        case onnx::TensorProto_DataType_BFLOAT16:
        case onnx::TensorProto_DataType_UNDEFINED:
            return DType::BF16;
        default:
            return DType::INT32;
        }
    }
};

} // namespace

OnnxGraph readOnnx(const std::string& path, const DimBindings& bindings) { return Reader(path, bindings).run(); }

} // namespace shardscope::onnx_import
