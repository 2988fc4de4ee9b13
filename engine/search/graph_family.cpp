#include "engine/search/graph_family.h"

#include "engine/util/error.h"

namespace shardscope {

GraphCache::GraphCache(std::shared_ptr<const Graph> given, int givenMicrobatches, std::optional<GraphFamily> family,
                       std::function<std::optional<RepeatedBlocks>(const Graph&)> fold)
    : family_(std::move(family)), fold_(std::move(fold)) {
    auto v = std::make_shared<GraphVariant>();
    v->blocks = fold_(*given);
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
    v->blocks = fold_(*v->graph);
    variants_[microbatches] = v;
    return v;
}

} // namespace shardscope
