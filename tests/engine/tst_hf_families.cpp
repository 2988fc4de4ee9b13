// Hugging Face families (engine/io/hf_config, engine/builders/transformer_*): each committed real
// config.json builds a graph whose parameter count is within 1% of the figure its model card (or
// paper) publishes, with the family's distinguishing parts in place; bad configs name the field.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/io/hf_config.h"
#include "engine/io/json_fields.h"
#include "engine/io/model_file.h"
#include "engine/ir/repeated_blocks.h"
#include "engine/pipeline/pipeline_layout.h"
#include "engine/util/error.h"

#include <cmath>
#include <numeric>

using namespace shardscope;

namespace {

const std::string kModels = SHARDSCOPE_SOURCE_DIR "/samples/models/";

Graph load(const std::string& dir, std::vector<std::string> sets = {}) {
    return loadModel(ModelRequest{kModels + dir + "/config.json", std::move(sets), std::nullopt}, 1);
}

bool hasTensor(const Graph& g, const char* name) { return g.findTensor(name).has_value(); }
bool hasOp(const Graph& g, const char* name) { return g.findOp(name).has_value(); }

std::string refusal(const nlohmann::json& config) {
    try {
        parseHfConfig(config, "x/config.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestHfFamilies : public QObject {
    Q_OBJECT
private slots:
    void parameterCountsMatchTheModelCards_data() {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<double>("published");
        // Model cards ("Number of Parameters") unless a paper's table is named.
        QTest::newRow("qwen2 Qwen2.5-7B") << "hf-qwen2.5-7b" << 7.61e9;
        QTest::newRow("qwen2 Qwen2.5-0.5B, tied") << "hf-qwen2.5-0.5b" << 0.49e9;
        QTest::newRow("qwen3 Qwen3-8B") << "hf-qwen3-8b" << 8.2e9;
        QTest::newRow("qwen3 Qwen3-0.6B, head_dim 128 != 1024/16") << "hf-qwen3-0.6b" << 0.6e9;
        QTest::newRow("qwen2_moe Qwen1.5-MoE-A2.7B") << "hf-qwen1.5-moe-a2.7b" << 14.3e9;
        QTest::newRow("qwen3_moe Qwen3-30B-A3B") << "hf-qwen3-30b-a3b" << 30.5e9;
        QTest::newRow("deepseek_v2 DeepSeek-V2-Lite") << "hf-deepseek-v2-lite" << 15.7e9;
        // 671B without the 14B multi-token-prediction module (the checkpoint's 685B).
        QTest::newRow("deepseek_v3 DeepSeek-V3") << "hf-deepseek-v3" << 671e9;
        // Gemma Team 2024, Table 2: 786,825,216 embedding + 7,751,248,896 non-embedding.
        QTest::newRow("gemma Gemma 7B") << "hf-gemma-7b" << 786825216.0 + 7751248896.0;
        // Gemma 2 report, Table 2: 917,962,752 embedding + 8,324,201,984 non-embedding.
        QTest::newRow("gemma2 Gemma 2 9B") << "hf-gemma-2-9b" << 917962752.0 + 8324201984.0;
        // Gemma 3 report, Table 1: 302M embedding + 698M non-embedding.
        QTest::newRow("gemma3_text Gemma 3 1B") << "hf-gemma-3-1b" << 1000e6;
        QTest::newRow("phi3 Phi-3-mini-4k") << "hf-phi-3-mini-4k" << 3.8e9;
        // Pythia (Biderman et al. 2023) model table: 1,414,647,808.
        QTest::newRow("gpt_neox Pythia-1.4B") << "hf-pythia-1.4b" << 1414647808.0;
        // The model page's safetensors figure, 3.03B.
        QTest::newRow("starcoder2 StarCoder2-3B") << "hf-starcoder2-3b" << 3.03e9;
        // The model card: 116.83B total parameters.
        QTest::newRow("gpt_oss GPT OSS 120B") << "hf-gpt-oss-120b" << 116.83e9;
    }
    void parameterCountsMatchTheModelCards() {
        QFETCH(QString, dir);
        QFETCH(double, published);
        const double count = load(dir.toStdString()).parameterCount();
        QVERIFY2(std::abs(count / published - 1) < 0.01,
                 qPrintable(QStringLiteral("%1: %2 vs published %3").arg(dir).arg(count, 0, 'f', 0).arg(published, 0, 'f', 0)));
    }

    void pythiaByHand() {
        // GPT-NeoX-style Pythia-1.4B, counted by hand: untied embedding and head 2 x 50304 x 2048;
        // per layer QKV 2048 x 6144 + 6144, dense 2048^2 + 2048, MLP 2048 x 8192 + 8192 + 8192 x 2048 + 2048,
        // two LayerNorms 2 x 2 x 2048; final LayerNorm 2 x 2048.
        const double h = 2048, f = 8192, v = 50304, L = 24;
        const double layer = (h * 3 * h + 3 * h) + (h * h + h) + (h * f + f + f * h + h) + 4 * h;
        QCOMPARE(load("hf-pythia-1.4b").parameterCount(), 2 * v * h + L * layer + 2 * h);
    }

    void gptOssByHand() {
        // GPT OSS 120B counted by hand: untied embedding and head 2 x 201088 x 2880; per layer two
        // RMSNorms 2 x 2880; attention with biases: Q 2880 x (64 x 64) + 4096, K and V 2880 x (8 x 64)
        // + 512 each, output 4096 x 2880 + 2880, a sink logit per head 64; router 2880 x 128 + 128;
        // 128 experts of gate+up 2880 x 5760 + 5760 and down 2880 x 2880 + 2880; final norm 2880.
        const double h = 2880, v = 201088, e = 128, f = 2880, L = 36;
        const double attention = (h * 4096 + 4096) + 2 * (h * 512 + 512) + (4096 * h + h) + 64;
        const double experts = (h * e + e) + e * (h * 2 * f + 2 * f + f * h + h);
        QCOMPARE(load("hf-gpt-oss-120b").parameterCount(), 2 * v * h + L * (2 * h + attention + experts) + h);
        QCOMPARE(2 * v * h + L * (2 * h + attention + experts) + h, 116829156672.0);
    }

    void slidingWindowLayersFollowTheConfig() {
        auto window = [](const Graph& g, int layer) {
            return g.op(*g.findOp("layers." + std::to_string(layer) + ".attn.scores")).window;
        };
        // GPT OSS: layer_types alternate, sliding first; 128 keys against a 4096-token sequence.
        const Graph oss = load("hf-gpt-oss-120b", {"layers=4"});
        QCOMPARE(window(oss, 0), std::int64_t(128));
        QCOMPARE(window(oss, 1), std::int64_t(0));
        QCOMPARE(window(oss, 2), std::int64_t(128));
        QVERIFY(hasTensor(oss, "layers.0.attn.sinks") && hasTensor(oss, "layers.0.moe.experts.down.bias"));
        // Gemma 3: every sixth layer attends fully (sliding_window_pattern 6), the others 512 keys.
        const Graph gemma3 = load("hf-gemma-3-1b", {"layers=7"});
        QCOMPARE(window(gemma3, 4), std::int64_t(512));
        QCOMPARE(window(gemma3, 5), std::int64_t(0));
        QCOMPARE(window(gemma3, 6), std::int64_t(512));
        // Gemma 2 alternates a 4096-key window: full attention at a 4096-token sequence, a band at 8192.
        QCOMPARE(window(load("hf-gemma-2-9b", {"layers=2"}), 0), std::int64_t(0));
        QCOMPARE(window(load("hf-gemma-2-9b", {"layers=2", "seq=8192"}), 0), std::int64_t(4096));
        QCOMPARE(window(load("hf-gemma-2-9b", {"layers=2", "seq=8192"}), 1), std::int64_t(0));
        // Phi-3 mini slides a 2047-key window on every layer.
        QCOMPARE(window(load("hf-phi-3-mini-4k", {"layers=2"}), 1), std::int64_t(2047));
    }

    void alternatingLayersFoldInPairs() {
        // A sliding and a full layer differ, so the repeated block is the pair: 6 layers fold as 3.
        const Graph oss = load("hf-gpt-oss-120b", {"layers=6"});
        const auto blocks = findRepeatedBlocks(oss);
        QVERIFY(blocks.has_value());
        QCOMPARE(blocks->count(), 3);
        const Graph uniform = load("hf-gpt-oss-120b", {"layers=6", "sliding_window=0"});
        QCOMPARE(findRepeatedBlocks(uniform)->count(), 6);
        // A pipeline still cuts between single layers: each pair splits into its two named layers,
        // which chain (each reads the one before). 6 layers on 2 stages: 3 each, a cut inside a pair.
        const auto layers = findLayers(oss);
        QVERIFY(layers.has_value());
        QCOMPARE(layers->count(), 6);
        QCOMPARE(layers->period(), blocks->period() / 2);
        for (int l = 0; l < 6; ++l)
            for (OpId o : layers->blocks[std::size_t(l)])
                QCOMPARE(oss.op(o).block.rfind("layers." + std::to_string(l), 0), std::size_t(0));
        const PipelineLayout cut = makePipelineLayout(oss, 2, 1);
        QCOMPARE(cut.chunkBlocks, (std::vector<int>{3, 3}));
        QCOMPARE(cut.stageOf(*oss.findOp("layers.2.add2")), 0);
        QCOMPARE(cut.stageOf(*oss.findOp("layers.3.norm1")), 1);
        // Gemma 3 1B repeats 5 sliding layers and a full one: 26 layers fold as 4 blocks of 6 with 2
        // layers after them, and every one of the 26 is a layer a pipeline can cut at: 13 a stage on 2.
        const Graph gemma3 = load("hf-gemma-3-1b");
        QCOMPARE(findRepeatedBlocks(gemma3)->count(), 4);
        QCOMPARE(findLayers(gemma3)->count(), 26);
        QCOMPARE(makePipelineLayout(gemma3, 2, 1).chunkBlocks, (std::vector<int>{13, 13}));
        QCOMPARE(makePipelineLayout(gemma3, 2, 1).stageOf(*gemma3.findOp("layers.13.norm1")), 1);
        // A layer of one kind keeps its attention and MLP together: Llama's layers are its blocks.
        const Graph llama = load("hf-llama", {"layers=4"});
        QCOMPARE(findLayers(llama)->count(), findRepeatedBlocks(llama)->count());
    }

    void eachFamilyHasItsParts() {
        const Graph qwen2 = load("hf-qwen2.5-0.5b");
        QVERIFY(hasTensor(qwen2, "layers.0.attn.qkv.bias"));
        QVERIFY(!hasTensor(qwen2, "layers.0.attn.proj.bias"));
        QVERIFY(!hasTensor(qwen2, "lm_head.weight")); // tied
        const Graph qwen3 = load("hf-qwen3-0.6b");
        QVERIFY(hasOp(qwen3, "layers.0.attn.q_norm") && hasOp(qwen3, "layers.0.attn.k_norm"));
        QCOMPARE(qwen3.tensor(*qwen3.findTensor("layers.0.attn.q_norm.weight")).shape, std::vector<std::int64_t>{128});
        const Graph gemma2 = load("hf-gemma-2-9b");
        QVERIFY(hasOp(gemma2, "layers.0.attn.post_norm") && hasOp(gemma2, "layers.0.mlp.post_norm"));
        const Graph neox = load("hf-pythia-1.4b");
        QCOMPARE(neox.op(*neox.findOp("layers.0.norm1")).kind, OpKind::LayerNorm);
        QVERIFY(hasOp(neox, "layers.0.mlp.gelu"));
        // Parallel residual: the MLP's norm reads the layer's input, as the attention's does.
        QCOMPARE(neox.op(*neox.findOp("layers.1.norm2")).inputs.front(), neox.op(*neox.findOp("layers.1.norm1")).inputs.front());
        const Graph v2 = load("hf-deepseek-v2-lite");
        QVERIFY(hasOp(v2, "layers.0.mlp.gate_up"));             // first_k_dense_replace = 1
        QVERIFY(hasOp(v2, "layers.1.moe.dispatch"));
        QVERIFY(hasOp(v2, "layers.1.moe.shared.gate_up"));      // 2 shared experts of 1408: 2816
        QCOMPARE(v2.tensor(*v2.findTensor("layers.1.moe.shared.gate_up.weight")).shape.back(), std::int64_t(2816));
        QVERIFY(hasOp(v2, "layers.1.attn.kv_b") && hasOp(v2, "layers.1.attn.q")); // no q_lora_rank
        const Graph v3 = load("hf-deepseek-v3", {"layers=5"});
        QVERIFY(hasOp(v3, "layers.2.mlp.gate_up") && hasOp(v3, "layers.3.moe.dispatch"));
        QVERIFY(hasOp(v3, "layers.3.attn.q_a") && hasOp(v3, "layers.3.attn.q_b"));
        const Graph qmoe = load("hf-qwen1.5-moe-a2.7b", {"layers=2"});
        QVERIFY(hasOp(qmoe, "layers.0.moe.shared.scale"));
    }

    void expertSlotsHoldEveryRoutedToken_data() {
        QTest::addColumn<QString>("dir");
        QTest::newRow("64 experts top-6") << "hf-deepseek-v2-lite";
        QTest::newRow("60 experts top-4") << "hf-qwen1.5-moe-a2.7b";
        QTest::newRow("128 experts top-8") << "hf-qwen3-30b-a3b";
    }
    void expertSlotsHoldEveryRoutedToken() {
        // Capacity C >= T k / e, and no more than 1% above it (capacity factor 1 where tokens deal evenly).
        QFETCH(QString, dir);
        const Graph g = load(dir.toStdString(), {"layers=4"});
        const std::string d = dir.toStdString();
        const nlohmann::json c = nlohmann::json::parse(readTextFile(kModels + d + "/config.json"));
        const double e = c.contains("n_routed_experts") ? c["n_routed_experts"].get<double>() : c["num_experts"].get<double>();
        const double k = c["num_experts_per_tok"].get<double>();
        const double tokens = 8 * 4096; // batch 8 of 4096-token sequences (the configs' longer contexts capped)
        const Op& dispatch = g.op(*g.findOp("layers.3.moe.dispatch"));
        const double capacity = double(g.tensor(dispatch.outputs.front()).shape[1]);
        QVERIFY2(capacity >= tokens * k / e && capacity <= 1.01 * tokens * k / e,
                 qPrintable(QStringLiteral("C = %1 for %2").arg(capacity).arg(tokens * k / e)));
    }

    void badConfigsNameTheField() {
        nlohmann::json qwen = nlohmann::json::parse(readTextFile(kModels + "hf-qwen1.5-moe-a2.7b/config.json"));
        qwen["decoder_sparse_step"] = 2;
        QVERIFY(refusal(qwen).find("field 'decoder_sparse_step'") != std::string::npos);
        nlohmann::json deepseek = nlohmann::json::parse(readTextFile(kModels + "hf-deepseek-v3/config.json"));
        deepseek.erase("kv_lora_rank");
        QVERIFY(refusal(deepseek).find("kv_lora_rank") != std::string::npos);
        nlohmann::json unknown = {{"model_type", "rwkv"}};
        const std::string why = refusal(unknown);
        QVERIFY2(why.find("unsupported model_type 'rwkv'") != std::string::npos && why.find("deepseek_v3") != std::string::npos,
                 why.c_str());
        nlohmann::json oss = nlohmann::json::parse(readTextFile(kModels + "hf-gpt-oss-120b/config.json"));
        oss["layer_types"][1] = "sliding_attention";
        QVERIFY(refusal(oss).find("field 'layer_types'") != std::string::npos);
        oss["layer_types"].erase(0);
        QVERIFY(refusal(oss).find("one type per layer (36)") != std::string::npos);
        // A multimodal Gemma 3 is read through its text_config, and its missing fields are named there.
        const nlohmann::json multimodal = {{"model_type", "gemma3"}, {"text_config", {{"model_type", "gemma3_text"}, {"hidden_size", 2560}}}};
        QVERIFY(refusal(multimodal).find("text_config.num_hidden_layers") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestHfFamilies)
#include "tst_hf_families.moc"
