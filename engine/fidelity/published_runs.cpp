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

/// The Megatron-LM README's weak-scaling table on H100 (its images/model_table.png, 2024): GPT models
/// of vocabulary 131072 and sequence 4096, Megatron-Core in BF16 with every overlap on
/// (--overlap-grad-reduce --overlap-param-gather --tp-comm-overlap), the distributed optimizer,
/// sequence parallelism with tensor parallelism, micro-batch 1, data parallelism 48; model TFLOP/s
/// per GPU by Megatron-Core's count. Megatron-Core's defaults otherwise: dropout 0.1, no
/// recomputation, Transformer Engine's fused attention; the table names no virtual pipeline, so the
/// pipelined rows run 1F1B.
MeasuredRun megatronH100Row(const std::string& size, int heads, int hidden, int layers, int tp, int pp, int batch,
                            double tflops) {
    const int gpus = 48 * tp * pp;
    MeasuredRun r;
    r.name = "Megatron-LM H100 " + size + " (TP " + std::to_string(tp) + (pp > 1 ? ", PP " + std::to_string(pp) : "") +
             ", " + std::to_string(gpus) + " GPUs)";
    r.source = "Megatron-LM README, H100 weak scaling";
    r.model = "gpt";
    r.sets = {"layers=" + std::to_string(layers), "hidden=" + std::to_string(hidden), "heads=" + std::to_string(heads),
              "seq=4096", "vocab=131072", "dropout=true"};
    r.batch = batch;
    r.cluster = "dgx-h100";
    r.nodes = gpus / 8;
    r.mesh = (pp > 1 ? "pipe=" + std::to_string(pp) + "," : "") + "data=48" + (tp > 1 ? ",model=" + std::to_string(tp) : "");
    r.strategy = tp > 1 ? "megatron-sp+zero1" : "zero1";
    r.recompute = Recompute::None;
    r.attention = AttentionKernel::Fused;
    r.overlap = true;
    r.tpOverlap = TpOverlap::Full;
    r.microbatches = batch / 48;
    r.metric = RunMetric::MegatronCoreTflopsPerGpu;
    r.measured = tflops;
    return r;
}

/// Llama 3 8B: 32 layers, hidden 4096, 32 heads in 8 KV groups, FFN 14336, vocabulary 128256.
std::vector<std::string> llama3_8b() {
    return {"layers=32", "hidden=4096", "heads=32", "kv_heads=8", "ffn=14336", "vocab=128256"};
}

/// Qwen3-30B-A3B (its Hugging Face config): 48 layers, hidden 2048, 32 heads of 128 in 4 KV groups with
/// query/key norms, 128 experts of FFN 768, top-8, vocabulary 151936.
std::vector<std::string> qwen3_30b_a3b() {
    return {"layers=48", "hidden=2048", "heads=32", "kv_heads=4", "head_dim=128", "qk_norm=true",
            "ffn=768", "experts=128", "top_k=8", "vocab=151936"};
}

/// Qwen3-235B-A22B (its Hugging Face config): 94 layers, hidden 4096, 64 heads of 128 in 4 KV groups
/// with query/key norms, 128 experts of FFN 1536, top-8, vocabulary 151936.
std::vector<std::string> qwen3_235b_a22b() {
    return {"layers=94", "hidden=4096", "heads=64", "kv_heads=4", "head_dim=128", "qk_norm=true",
            "ffn=1536", "experts=128", "top_k=8", "vocab=151936"};
}

/// Llama 3.1 405B: 126 layers, hidden 16384, 128 heads in 8 KV groups, FFN 53248, vocabulary 128256.
std::vector<std::string> llama405b() {
    return {"layers=126", "hidden=16384", "heads=128", "kv_heads=8", "ffn=53248", "vocab=128256"};
}

/// Megatron-Bridge's 405B cut: the embedding and the loss each count as a layer
/// (account_for_embedding_in_pipeline_split, account_for_loss_in_pipeline_split), so 126 layers + 2
/// deal evenly into the chunks and the first and last chunk hold one layer fewer.
std::vector<int> embeddingAndLossCut(int layers, int chunks) {
    const int per = (layers + 2) / chunks;
    std::vector<int> cut(std::size_t(chunks), per);
    cut.front() -= 1;
    cut.back() -= 1;
    return cut;
}

/// What a Megatron-Bridge row ran: the model, its precision, and the table's columns.
struct BridgeConfig {
    std::string model;              ///< builder preset: "llama" or "moe"
    std::vector<std::string> sets;  ///< its parameters
    int seq = 8192;
    Precision precision = Precision::FP8;
    int gbs = 0, mbs = 1;
    bool fsdp = false;
    int tp = 1, pp = 1, cp = 1, vp = 1, ep = 1;
    bool etp1 = false;              ///< expert tensor parallelism 1: EP spans the TP ranks (MoE parallel folding)
    Recompute recompute = Recompute::None;
    std::vector<int> chunkBlocks; ///< a fixed pipeline cut; empty: balanced
    std::string release = "25.11"; ///< the NeMo container of the summary's table
};

/// A row of NVIDIA Megatron-Bridge's performance summary (docs/performance-summary.md, 25.11 container):
/// pre-training with the given GBS, MBS, FSDP, TP, PP, CP, VP and EP on `gpus` GPUs of `cluster`
/// (`perNode` a node or tray), tokens per second per GPU. Megatron-Core underneath: the distributed
/// optimizer without FSDP, sequence parallelism and --tp-comm-overlap with TP, every data-parallel
/// overlap, Transformer Engine's fused attention and fused cross-entropy (the performance scripts set
/// cross_entropy_fusion_impl "te", scripts/performance/utils/overrides.py), no recomputation unless
/// the config says, expert parallelism as an `expert` axis inside data parallelism.
MeasuredRun bridgeRow(const std::string& system, const std::string& cluster, int perNode, const std::string& label,
                      const BridgeConfig& k, int gpus, double tokens) {
    const int dp = gpus / k.tp / k.pp / k.cp;
    // Folded, the TP ranks are expert ranks too: the expert axis holds EP / TP of the data ranks.
    const bool folded = k.etp1 && k.tp > 1;
    const int expertAxis = folded ? k.ep / k.tp : k.ep;
    auto part = [](const char* name, int n) { return n > 1 ? std::string(", ") + name + " " + std::to_string(n) : ""; };
    MeasuredRun r;
    r.name = "Megatron-Bridge " + system + " " + label + " " + std::string(precisionName(k.precision)) + " (" +
             std::to_string(gpus) + " GPUs" + (k.fsdp ? ", FSDP" : "") + part("TP", k.tp) + part("PP", k.pp) +
             part("CP", k.cp) + part("VP", k.vp) + part("EP", k.ep) + ")" +
             (k.release == "25.11" ? "" : " [" + k.release + "]");
    r.source = "Megatron-Bridge docs/performance-summary.md, " + k.release;
    r.model = k.model;
    r.sets = k.sets;
    r.sets.push_back("seq=" + std::to_string(k.seq));
    r.batch = k.gbs;
    r.cluster = cluster;
    r.nodes = gpus / perNode;
    r.mesh = (k.pp > 1 ? "pipe=" + std::to_string(k.pp) + "," : "") + "data=" + std::to_string(dp / expertAxis) +
             (expertAxis > 1 ? ",expert=" + std::to_string(expertAxis) : "") +
             (k.cp > 1 ? ",seq=" + std::to_string(k.cp) : "") + (k.tp > 1 ? ",model=" + std::to_string(k.tp) : "");
    r.strategy = std::string(k.tp > 1 ? "megatron-sp+" : "") + (k.fsdp ? "zero3" : "zero1") + (folded ? "+etp1" : "");
    r.recompute = k.recompute;
    r.attention = AttentionKernel::Fused;
    r.precision = k.precision;
    r.loss = LossKernel::Fused;
    r.overlap = true;
    r.tpOverlap = k.tp > 1 ? TpOverlap::Full : TpOverlap::Off;
    r.schedule = k.vp > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
    r.virtualStages = k.vp;
    r.chunkBlocks = k.chunkBlocks;
    r.microbatches = k.gbs / dp / k.mbs;
    r.metric = RunMetric::TokensPerGpuSecond;
    r.measured = tokens;
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

std::vector<MeasuredRun> megatronH100Family() {
    return {megatronH100Row("1.7B", 16, 2048, 24, 1, 1, 192, 408.8),
            megatronH100Row("7.1B", 32, 4096, 30, 2, 1, 192, 465.9),
            megatronH100Row("16B", 48, 6144, 32, 4, 1, 192, 489.1),
            megatronH100Row("32B", 56, 7168, 48, 8, 1, 192, 459.6),
            megatronH100Row("70B", 64, 8192, 84, 8, 2, 384, 419.7),
            megatronH100Row("119B", 80, 10240, 92, 8, 4, 768, 420.5),
            megatronH100Row("177B", 96, 12288, 96, 8, 6, 1152, 432.8),
            megatronH100Row("314B", 128, 16384, 96, 8, 8, 1536, 474.4)};
}

std::vector<MeasuredRun> megatronBridgeFamily() {
    const auto fp8 = Precision::FP8, mx = Precision::MXFP8;
    auto llama = [](std::vector<std::string> sets, Precision p, int gbs, int mbs) {
        BridgeConfig k;
        k.model = "llama";
        k.sets = std::move(sets);
        k.precision = p;
        k.gbs = gbs;
        k.mbs = mbs;
        return k;
    };
    const auto l8 = llama3_8b(), l70 = llama70b(128256);
    BridgeConfig h100_8b = llama(l8, fp8, 128, 1);
    h100_8b.fsdp = true;
    BridgeConfig h100_70b = llama(l70, fp8, 128, 1);
    h100_70b.tp = 4;
    h100_70b.pp = 8;
    h100_70b.vp = 5;
    // The table names no recomputation for the FSDP 70B rows, but without it a micro-batch of 2 x 8192
    // tokens keeps about 365 GB of activations per GPU (34 s b h bytes x 80 layers): the recipe must
    // recompute (or offload), and full recomputation is assumed.
    BridgeConfig fsdp70b = llama(l70, fp8, 256, 2);
    fsdp70b.fsdp = true;
    fsdp70b.recompute = Recompute::Full;
    // Llama 3.1 405B with Megatron-Bridge's cut.
    auto l405 = [&](Precision p, int gbs, int tp, int pp, int cp, int vp) {
        BridgeConfig k = llama(llama405b(), p, gbs, 1);
        k.tp = tp;
        k.pp = pp;
        k.cp = cp;
        k.vp = vp;
        k.chunkBlocks = embeddingAndLossCut(126, pp * vp);
        return k;
    };
    // The Qwen3 MoE rows: sequence 4096.
    auto moe = [](std::vector<std::string> sets, Precision p, int gbs, int mbs, int pp, int vp, int ep) {
        BridgeConfig k;
        k.model = "moe";
        k.sets = std::move(sets);
        k.seq = 4096;
        k.precision = p;
        k.gbs = gbs;
        k.mbs = mbs;
        k.pp = pp;
        k.vp = vp;
        k.ep = ep;
        return k;
    };
    // Qwen3-30B-A3B: global batch 512, expert parallelism 8.
    auto qwen = [&](Precision p, int mbs, int pp, int vp) { return moe(qwen3_30b_a3b(), p, 512, mbs, pp, vp, 8); };
    // Qwen3-235B-A22B with Megatron-Bridge's cut (its recipes set account_for_embedding_in_pipeline_split
    // and account_for_loss_in_pipeline_split: 94 + 2 layers).
    auto qwen235 = [&](Precision p, int gbs, int mbs, int pp, int vp, int ep) {
        BridgeConfig k = moe(qwen3_235b_a22b(), p, gbs, mbs, pp, vp, ep);
        k.chunkBlocks = embeddingAndLossCut(94, pp * vp);
        return k;
    };
    // DeepSeek-V3 without multi-token prediction, from its config.json: 3 dense layers, then 58 MoE
    // layers (256 experts of FFN 2048, top-8, one shared expert). Megatron-Bridge's layout for PP 4 x
    // VP 4 (recipes/deepseek/deepseek_v3.py, _get_deepseek_v3_pipeline_layout): the embedding and 4
    // decoder layers, 14 chunks of 4, then 1 and the loss; in repeated MoE blocks, 1 (the dense
    // layers ride with the first chunk), 14 x 4, 1.
    BridgeConfig deepseek;
    deepseek.model = SHARDSCOPE_SAMPLES_DIR "/models/hf-deepseek-v3/config.json";
    deepseek.seq = 4096;
    deepseek.precision = Precision::BF16;
    deepseek.gbs = 4096;
    deepseek.pp = 4;
    deepseek.vp = 4;
    deepseek.ep = 64;
    deepseek.chunkBlocks.assign(16, 4);
    deepseek.chunkBlocks.front() = deepseek.chunkBlocks.back() = 1;
    // GPT OSS 120B from its config.json: 36 layers, a 128-key sliding window and full attention in
    // turn, 128 experts top-4 with biases; expert parallelism spans the data-parallel ranks.
    auto oss = [&](Precision p, int gbs, int mbs, int seq, int ep) {
        BridgeConfig k = moe({}, p, gbs, mbs, 1, 1, ep);
        k.model = SHARDSCOPE_SAMPLES_DIR "/models/hf-gpt-oss-120b/config.json";
        k.seq = seq;
        return k;
    };
    // Qwen3-235B-A22B on H100s: TP 2 with expert parallelism 32 over 16 data-parallel ranks, so the
    // experts fold over the TP ranks (expert tensor parallelism 1, Megatron's default for MoE with TP).
    BridgeConfig h100_235b = qwen235(fp8, 2048, 1, 8, 4, 32);
    h100_235b.tp = 2;
    h100_235b.etp1 = true;
    // GPT OSS 120B on H100s: PP 4, 9 layers a stage (the pipeline cuts between the layers of a pair).
    BridgeConfig h100_oss = oss(Precision::BF16, 512, 4, 4096, 8);
    h100_oss.pp = 4;
    auto release = [](BridgeConfig k, const char* container) {
        k.release = container;
        return k;
    };
    const auto bf16 = Precision::BF16;
    return {bridgeRow("DGX-H100", "dgx-h100", 8, "Llama 3 8B", h100_8b, 8, 14451),
            bridgeRow("DGX-H100", "dgx-h100", 8, "Llama 3 70B", h100_70b, 64, 1602),
            bridgeRow("DGX-B200", "dgx-b200", 8, "Llama 3 8B", llama(l8, fp8, 128, 2), 8, 30624),
            bridgeRow("DGX-B200", "dgx-b200", 8, "Llama 3 8B", llama(l8, mx, 128, 2), 8, 29521),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "Llama 3 8B", llama(l8, fp8, 128, 2), 8, 31508),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "Llama 3 8B", llama(l8, mx, 128, 2), 8, 29789),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "Llama 3 70B", fsdp70b, 64, 4312),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "Llama 3 8B", llama(l8, fp8, 128, 2), 8, 37556),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "Llama 3 8B", llama(l8, mx, 128, 2), 8, 36108),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "Llama 3 70B", fsdp70b, 64, 4520),
            bridgeRow("DGX-H100", "dgx-h100", 8, "Llama 3.1 405B", l405(fp8, 512, 8, 8, 2, 8), 1024, 292),
            bridgeRow("DGX-B200", "dgx-b200", 8, "Llama 3.1 405B", l405(fp8, 64, 4, 8, 2, 8), 128, 661),
            bridgeRow("DGX-B200", "dgx-b200", 8, "Llama 3.1 405B", l405(mx, 64, 4, 8, 2, 8), 128, 624),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "Llama 3.1 405B", l405(fp8, 1536, 4, 16, 1, 4), 256, 813),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "Llama 3.1 405B", l405(fp8, 1536, 2, 8, 2, 4), 256, 999),
            bridgeRow("DGX-H100", "dgx-h100", 8, "Qwen3 30B-A3B", qwen(fp8, 2, 2, 24), 16, 5275),
            bridgeRow("DGX-B200", "dgx-b200", 8, "Qwen3 30B-A3B", qwen(mx, 1, 1, 1), 8, 9299),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "Qwen3 30B-A3B", qwen(mx, 4, 1, 1), 8, 23766),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "Qwen3 30B-A3B", qwen(mx, 4, 1, 1), 8, 28934),
            bridgeRow("DGX-B200", "dgx-b200", 8, "Qwen3 235B-A22B", qwen235(mx, 1024, 1, 8, 2, 8), 64, 3269),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "Qwen3 235B-A22B", qwen235(bf16, 8192, 1, 8, 3, 32), 256, 4916),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "Qwen3 235B-A22B", qwen235(bf16, 8192, 2, 4, 12, 16), 256, 6131),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "DeepSeek-V3 (no MTP)", deepseek, 256, 3139),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "Qwen3 30B-A3B", release(qwen(mx, 4, 1, 1), "26.08"), 8, 39936),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "Qwen3 30B-A3B", release(qwen(mx, 8, 1, 1), "26.08"), 8, 44544),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "Qwen3 235B-A22B",
                      release(qwen235(mx, 8192, 1, 8, 3, 32), "26.08"), 256, 7280),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "Qwen3 235B-A22B",
                      release(qwen235(mx, 8192, 2, 4, 12, 32), "26.08"), 256, 8816),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "GPT OSS 120B", oss(bf16, 1280, 2, 8192, 64), 64, 18347),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "GPT OSS 120B", oss(bf16, 1280, 1, 8192, 64), 64, 15876),
            bridgeRow("DGX-B200", "dgx-b200", 8, "GPT OSS 120B", oss(bf16, 512, 4, 4096, 8), 64, 8213),
            bridgeRow("DGX-GB300", "gb300-nvl72", 4, "GPT OSS 120B", release(oss(mx, 1280, 4, 4096, 16), "26.08"), 64, 33024),
            bridgeRow("DGX-GB200", "gb200-nvl72", 4, "GPT OSS 120B", release(oss(mx, 1280, 4, 4096, 64), "26.08"), 64, 28672),
            bridgeRow("DGX-H100", "dgx-h100", 8, "Qwen3 235B-A22B", h100_235b, 256, 1575),
            bridgeRow("DGX-H100", "dgx-h100", 8, "GPT OSS 120B", h100_oss, 64, 5630)};
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
