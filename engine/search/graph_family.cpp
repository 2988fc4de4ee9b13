#include "engine/search/graph_family.h"

#include "engine/builders/builders.h"
#include "engine/util/error.h"

namespace shardscope {

GraphCache::GraphCache(std::shared_ptr<const Graph> given, int givenMicrobatches, std::optional<GraphFamily> family,
                       std::function<std::optional<RepeatedBlocks>(const RepeatedBlocks& layers)> fold)
    : family_(std::move(family)), fold_(std::move(fold)) {
    auto v = std::make_shared<GraphVariant>();
    findBlocks(*v, *given);
    v->facts = std::make_shared<const GraphFacts>(given);
    given_ = given;
    v->graph = std::move(given);
    variants_[givenMicrobatches] = std::move(v);
}

std::shared_ptr<const GraphVariant> GraphCache::get(int microbatches) {
    std::lock_guard lock(mutex_);
    if (auto it = variants_.find(microbatches); it != variants_.end())
        return it->second;
    if (!family_)
        throw InputError("search: this model fixes its own batch, so its micro-batch count cannot change");
    auto v = std::make_shared<GraphVariant>();
    v->graph = std::make_shared<const Graph>(family_->build(microbatches));
    findBlocks(*v, *v->graph);
    v->facts = std::make_shared<const GraphFacts>(v->graph);
    variants_[microbatches] = v;
    return v;
}

void GraphCache::findBlocks(GraphVariant& v, const Graph& g) const {
    v.layers = findRepeatedBlocks(g);
    if (v.layers) {
        v.blocks = fold_(*v.layers);
        v.cuts = layersOf(g, *v.layers);
    }
}

std::vector<std::shared_ptr<const Graph>> GraphCache::graphs() const {
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<const Graph>> out{given_};
    for (const auto& [m, v] : variants_)
        if (v->graph != given_)
            out.push_back(v->graph);
    return out;
}

std::optional<GraphFamily> graphFamilyOf(const ModelSource& source) {
    if (const auto& builder = source.builder)
        return GraphFamily{builder->params.batch, [builder](int micro) {
                               return buildModel(builder->family, builder->params, micro, builder->name);
                           }};
    if (!source.onnx)
        return std::nullopt;
    const ModelRequest& request = source.request;
    std::optional<int> batch = request.batch;
    for (const std::string& s : request.sets)
        if (s.rfind("batch=", 0) == 0 && s.size() > 6 && s.size() <= 15 &&
            s.find_first_not_of("0123456789", 6) == std::string::npos)
            batch = std::stoi(s.substr(6));
    if (!batch)
        return std::nullopt;
    return GraphFamily{*batch, [source](int micro) { return source.build(micro); }};
}

} // namespace shardscope
