#include "engine/pipeline/pipeline_layout.h"

#include "engine/util/error.h"

#include <numeric>
#include <sstream>

namespace shardscope {

std::string PipelineLayout::rangesText() const {
    std::string text;
    int first = 0;
    for (int n : chunkBlocks) {
        text += (text.empty() ? "" : ",") + std::to_string(first) + "-" + std::to_string(first + n - 1);
        first += n;
    }
    return text;
}

std::vector<int> balancedChunkBlocks(int blocks, int chunks) {
    if (chunks < 1 || blocks < chunks)
        throw InputError("pipeline: " + std::to_string(blocks) + " repeated blocks cannot fill " +
                         std::to_string(chunks) + " model chunks (stages x virtual stages)");
    std::vector<int> counts(std::size_t(chunks), blocks / chunks);
    for (int i = 0; i < blocks % chunks; ++i)
        ++counts[std::size_t(i)];
    return counts;
}

std::vector<int> parseChunkRanges(const std::string& text, int blocks) {
    std::vector<int> counts;
    std::stringstream in(text);
    std::string part;
    int next = 0;
    while (std::getline(in, part, ',')) {
        const auto dash = part.find('-');
        int first = -1, last = -1;
        try {
            std::size_t used = 0;
            first = std::stoi(part.substr(0, dash), &used);
            last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1), &used);
        } catch (const std::exception&) {
            throw InputError("--stages '" + text.substr(0, 80) + "': '" + part.substr(0, 40) + "' is not a block range");
        }
        if (first != next || last < first)
            throw InputError("--stages '" + text.substr(0, 80) + "': range '" + part.substr(0, 40) + "' must start at block " +
                             std::to_string(next) + " and not end before it starts");
        counts.push_back(last - first + 1);
        next = last + 1;
    }
    if (next != blocks)
        throw InputError("--stages '" + text.substr(0, 80) + "': the ranges cover blocks 0-" + std::to_string(next - 1) +
                         " but the model has " + std::to_string(blocks) + " (0-" + std::to_string(blocks - 1) + ")");
    return counts;
}

PipelineLayout makePipelineLayout(const Graph& graph, int stages, int virtualStages, std::vector<int> chunkBlocks) {
    if (stages <= 1 && virtualStages <= 1) {
        PipelineLayout layout;
        layout.stages = stages;
        layout.virtualStages = virtualStages;
        return layout;
    }
    const auto blocks = findLayers(graph);
    if (!blocks)
        throw InputError("pipeline: model '" + graph.name + "' has no repeated blocks (layers) to cut into stages");
    return makePipelineLayout(graph, *blocks, stages, virtualStages, std::move(chunkBlocks));
}

PipelineLayout makePipelineLayout(const Graph& graph, const RepeatedBlocks& blocks, int stages, int virtualStages,
                                  std::vector<int> chunkBlocks) {
    PipelineLayout layout;
    layout.stages = stages;
    layout.virtualStages = virtualStages;
    if (stages <= 1 && virtualStages <= 1)
        return layout;
    if (virtualStages < 1)
        throw InputError("--virtual-stages must be at least 1");
    const int chunks = layout.chunks();
    if (chunkBlocks.empty())
        chunkBlocks = balancedChunkBlocks(blocks.count(), chunks);
    if (int(chunkBlocks.size()) != chunks)
        throw InputError("--stages: " + std::to_string(chunkBlocks.size()) + " ranges for " + std::to_string(chunks) +
                         " model chunks (pipe " + std::to_string(stages) + " x virtual stages " +
                         std::to_string(virtualStages) + ")");
    for (int n : chunkBlocks)
        if (n < 1)
            throw InputError("--stages: every model chunk needs at least one block");
    if (std::accumulate(chunkBlocks.begin(), chunkBlocks.end(), 0) != blocks.count())
        throw InputError("--stages: the chunks hold " + std::to_string(std::accumulate(chunkBlocks.begin(), chunkBlocks.end(), 0)) +
                         " blocks but the model has " + std::to_string(blocks.count()));
    layout.chunkBlocks = std::move(chunkBlocks);
    std::vector<int> chunkOfBlock;
    for (int c = 0; c < chunks; ++c)
        chunkOfBlock.insert(chunkOfBlock.end(), std::size_t(layout.chunkBlocks[std::size_t(c)]), c);
    // Ops outside the blocks go with the first chunk before the region and the last after it.
    layout.chunkOf.assign(graph.ops().size(), 0);
    bool pastRegion = false;
    for (OpId o : graph.topoOrder()) {
        const int b = blocks.blockOf[o.index()];
        if (b >= 0) {
            layout.chunkOf[o.index()] = chunkOfBlock[std::size_t(b)];
            pastRegion = b == blocks.count() - 1 || pastRegion;
        } else {
            layout.chunkOf[o.index()] = pastRegion ? chunks - 1 : 0;
        }
    }
    return layout;
}

} // namespace shardscope
