#include "engine/fidelity/published_runs.h"

#include <string>

namespace shardscope {

namespace {

/// A GPT of Megatron's family: sequence 2048, vocabulary 51200, dropout on.
std::vector<std::string> gptSets(int layers, int hidden, int heads) {
    return {"layers=" + std::to_string(layers), "hidden=" + std::to_string(hidden), "heads=" + std::to_string(heads),
            "seq=2048", "vocab=51200", "dropout=true"};
}

/// Narayanan et al. 2021 Table 1: a row without pipelining, as TFLOP/s per A100 on Selene (DGX A100
/// nodes of 8), tensor parallelism t within a node, data parallelism over the rest, full
/// recomputation, micro-batches of `microbatchSize` sequences (Megatron-LM's examples/sc21/
/// run_table_1.sh gives each row's). Megatron-LM's data parallelism then (--DDP-impl local, the
/// default) all-reduced the gradients after the backward, not behind it.
MeasuredRun narayananRow(int row, const std::string& size, int layers, int hidden, int heads, int t, int gpus,
                         int batch, int microbatchSize, double tflops) {
    MeasuredRun r;
    r.name = "Narayanan Table 1 row " + std::to_string(row) + " (" + size + ", TP " + std::to_string(t) + ", " +
             std::to_string(gpus) + " GPUs)";
    r.source = "Narayanan et al. 2021, Table 1";
    r.model = "gpt";
    r.sets = gptSets(layers, hidden, heads);
    r.batch = batch;
    r.cluster = "dgx-a100";
    r.nodes = gpus / 8;
    r.mesh = "data=" + std::to_string(gpus / t) + (t > 1 ? ",model=" + std::to_string(t) : "");
    r.strategy = t > 1 ? "megatron" : "dp";
    r.recompute = Recompute::Full;
    r.microbatches = batch / (gpus / t) / microbatchSize;
    r.overlap = false;
    r.metric = RunMetric::GptTflopsPerGpu;
    r.measured = tflops;
    return r;
}

/// Narayanan et al. 2021 Table 1 rows 5-10: tensor parallelism 8 in a node, pipeline parallelism
/// over `pipe` stages, data parallelism over the rest, micro-batches of `microbatchSize` sequences;
/// `layersPerChunk` > 0 runs the interleaved schedule with that many layers per model chunk
/// (run_table_1.sh's --num-layers-per-virtual-pipeline-stage), else 1F1B.
MeasuredRun narayananPipelined(int row, const std::string& size, int layers, int hidden, int heads, int pipe, int gpus,
                               int batch, int microbatchSize, int layersPerChunk, double tflops) {
    const int data = gpus / 8 / pipe;
    MeasuredRun r = narayananRow(row, size, layers, hidden, heads, 8, gpus, batch, microbatchSize, tflops);
    r.name = "Narayanan Table 1 row " + std::to_string(row) + " (" + size + ", TP 8, PP " + std::to_string(pipe) + ", " +
             std::to_string(gpus) + " GPUs)";
    r.mesh = "pipe=" + std::to_string(pipe) + (data > 1 ? ",data=" + std::to_string(data) : "") + ",model=8";
    r.microbatches = batch / data / microbatchSize;
    if (layersPerChunk > 0) {
        r.schedule = Schedule::Interleaved;
        r.virtualStages = layers / pipe / layersPerChunk;
    }
    return r;
}

/// Korthikanti et al. 2022 Table 3: GPTs of 175B, 530B and 1T parameters with tensor parallelism 8
/// and pipeline parallelism over every node (no data parallelism), batch = GPUs, micro-batch size 1,
/// seconds per iteration; `virtualStages` > 1 runs the interleaved schedule.
MeasuredRun korthikantiPipelined(const std::string& size, int layers, int hidden, int heads, int pipe,
                                 const std::string& what, const std::string& strategy, Recompute recompute,
                                 int virtualStages, double seconds) {
    const int gpus = 8 * pipe;
    MeasuredRun r;
    r.name = "Korthikanti " + size + ", TP 8, PP " + std::to_string(pipe) + ", " + what;
    r.source = "Korthikanti et al. 2022, Table 3";
    r.model = "gpt";
    r.sets = gptSets(layers, hidden, heads);
    r.batch = gpus;
    r.cluster = "dgx-a100";
    r.nodes = pipe;
    r.mesh = "pipe=" + std::to_string(pipe) + ",model=8";
    r.strategy = strategy;
    r.recompute = recompute;
    r.microbatches = gpus;
    r.schedule = virtualStages > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
    r.virtualStages = virtualStages;
    r.metric = RunMetric::StepSeconds;
    r.measured = seconds;
    return r;
}

/// Korthikanti et al. 2022: the 22B GPT (48 layers, hidden 6144, 64 heads) on one DGX A100 node with
/// tensor parallelism 8 and batch 4, seconds per iteration.
MeasuredRun korthikanti22b(const std::string& what, const std::string& strategy, Recompute recompute, double seconds) {
    MeasuredRun r;
    r.name = "Korthikanti 22B, " + what;
    r.source = "Korthikanti et al. 2022, Table 4";
    r.model = "gpt";
    r.sets = gptSets(48, 6144, 64);
    r.batch = 4;
    r.cluster = "dgx-a100";
    r.nodes = 1;
    r.mesh = "model=8";
    r.strategy = strategy;
    r.recompute = recompute;
    r.metric = RunMetric::StepSeconds;
    r.measured = seconds;
    return r;
}

/// torchtitan's docs/performance.md: Llama trained with FSDP2 (fully_shard, ZeRO-3 with prefetch) on
/// 64 A100-80GB (8 nodes), local batch `perGpu` sequences of `seq` tokens, one micro-batch, PyTorch's
/// fused SDPA attention, tokens per second per GPU.
MeasuredRun torchtitanLlama(const std::string& what, std::vector<std::string> sets, int seq, int perGpu,
                            Recompute recompute, double tokensPerSecond) {
    MeasuredRun r;
    r.name = "torchtitan " + what;
    r.source = "torchtitan docs/performance.md, FSDP2 on 64 A100";
    r.model = "llama";
    r.sets = std::move(sets);
    r.sets.push_back("seq=" + std::to_string(seq));
    r.batch = 64 * perGpu;
    r.cluster = "dgx-a100";
    r.nodes = 8;
    r.mesh = "data=64";
    r.strategy = "fsdp";
    r.microbatches = 1;
    r.recompute = recompute;
    r.attention = AttentionKernel::Fused;
    r.overlap = true;
    r.metric = RunMetric::TokensPerGpuSecond;
    r.measured = tokensPerSecond;
    return r;
}

/// Llama 2 70B and Llama 3 70B: 80 layers, hidden 8192, 64 heads in 8 KV groups, FFN 28672.
std::vector<std::string> llama70b(int vocab) {
    return {"layers=80", "hidden=8192", "heads=64", "kv_heads=8", "ffn=28672", "vocab=" + std::to_string(vocab)};
}

} // namespace

std::vector<MeasuredRun> megatronFamily() {
    return {narayananRow(1, "1.7B", 24, 2304, 24, 1, 32, 512, 16, 137),
            narayananRow(2, "3.6B", 30, 3072, 32, 2, 64, 512, 16, 138),
            narayananRow(3, "7.5B", 36, 4096, 32, 4, 128, 512, 16, 142),
            narayananRow(4, "18.4B", 40, 6144, 48, 8, 256, 1024, 8, 135),
            korthikanti22b("TP 8, full recomputation", "megatron", Recompute::Full, 1.42),
            korthikanti22b("TP 8 + SP, selective recomputation", "megatron-sp", Recompute::Selective, 1.10)};
}

std::vector<MeasuredRun> torchtitanFamily() {
    return {torchtitanLlama("Llama 3 70B, full AC", llama70b(128256), 8192, 1, Recompute::Full, 331),
            torchtitanLlama("Llama 2 70B, full AC", llama70b(32000), 4096, 2, Recompute::Full, 353),
            torchtitanLlama("Llama 2 13B, no AC",
                            {"layers=40", "hidden=5120", "heads=40", "kv_heads=40", "ffn=13824", "vocab=32000"}, 4096,
                            2, Recompute::None, 2162)};
}

std::vector<MeasuredRun> pipelinedFamily() {
    const auto full = Recompute::Full, selective = Recompute::Selective;
    return {narayananPipelined(5, "39.1B", 48, 8192, 64, 2, 512, 1536, 4, 0, 138),
            narayananPipelined(6, "76.1B", 60, 10240, 80, 4, 1024, 1792, 2, 5, 140),
            narayananPipelined(7, "145.6B", 80, 12288, 96, 8, 1536, 2304, 2, 5, 148),
            narayananPipelined(8, "310.1B", 96, 16384, 128, 16, 1920, 2160, 1, 3, 155),
            narayananPipelined(9, "529.6B", 105, 20480, 128, 35, 2520, 2520, 1, 1, 163),
            narayananPipelined(10, "1008B", 128, 25600, 160, 64, 3072, 3072, 1, 0, 163),
            korthikantiPipelined("175B", 96, 12288, 96, 8, "full recomputation", "megatron", full, 3, 18.13),
            korthikantiPipelined("175B", 96, 12288, 96, 8, "SP + selective", "megatron-sp", selective, 3, 13.75),
            korthikantiPipelined("530B", 105, 20480, 128, 35, "full recomputation", "megatron", full, 1, 49.05),
            korthikantiPipelined("530B", 105, 20480, 128, 35, "SP + selective", "megatron-sp", selective, 1, 37.83),
            korthikantiPipelined("1T", 128, 25600, 160, 64, "full recomputation", "megatron", full, 1, 94.42),
            korthikantiPipelined("1T", 128, 25600, 160, 64, "SP + selective", "megatron-sp", selective, 1, 71.49)};
}

std::vector<MeasuredRun> publishedRuns() {
    std::vector<MeasuredRun> runs = megatronFamily();
    for (MeasuredRun& r : torchtitanFamily())
        runs.push_back(std::move(r));
    for (MeasuredRun& r : pipelinedFamily())
        runs.push_back(std::move(r));
    return runs;
}

} // namespace shardscope
