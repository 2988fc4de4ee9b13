// An Inception-v3-like network: modules of parallel branches (1x1; 1x1 -> 3x3; 1x1 -> 3x3 -> 3x3;
// pool -> 1x1, and the factorised 1x7 / 7x1 and split 1x3 / 3x1 variants) joined by channel
// concatenation, the branchy graph PaSE was built for. Spatial sizes are powers of two (32, 16, 8)
// where Inception-v3 has 35, 17, 8, so strided layers divide exactly.

#include "engine/builders/builders.h"
#include "engine/builders/conv_parts.h"

#include <vector>

namespace shardscope {

namespace {

using I = std::int64_t;
using conv::Feature;

/// Concatenates branches along channels. Channels cannot be split across a concatenation; batch and
/// spatial dimensions can.
Feature concat(GraphBuilder& gb, const std::vector<Feature>& parts, const std::string& name, const std::string& block,
               I n) {
    std::string in;
    std::string fixed;
    std::vector<TensorId> inputs;
    I channels = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string c = "c" + std::to_string(i);
        in += (i ? "," : "") + std::string("[n,") + c + ",P,Q]";
        fixed += c + ":fixed,";
        inputs.push_back(parts[i].t);
        channels += parts[i].c;
    }
    const std::string rule = "(" + in + ")->([n,k,P,Q]) {" + fixed + "k:fixed}";
    const TensorId t = gb.op(name, OpKind::Concat, rule, inputs, {n, channels, parts[0].size, parts[0].size}, block,
                             OpHints{"n", "", "", ""});
    return {t, channels, parts[0].size};
}

Feature moduleA(GraphBuilder& gb, const Feature& x, I poolChannels, const std::string& b, I n) {
    const Feature b1 = conv::unit(gb, x, 64, 1, 1, 1, b + ".b1x1", b, n);
    Feature b5 = conv::unit(gb, x, 48, 1, 1, 1, b + ".b5x5_1", b, n);
    b5 = conv::unit(gb, b5, 64, 5, 5, 1, b + ".b5x5_2", b, n);
    Feature b3 = conv::unit(gb, x, 64, 1, 1, 1, b + ".b3x3_1", b, n);
    b3 = conv::unit(gb, b3, 96, 3, 3, 1, b + ".b3x3_2", b, n);
    b3 = conv::unit(gb, b3, 96, 3, 3, 1, b + ".b3x3_3", b, n);
    const Feature bp = conv::unit(gb, conv::pool(gb, x, 1, b + ".pool", b, n), poolChannels, 1, 1, 1, b + ".bpool", b, n);
    return concat(gb, {b1, b5, b3, bp}, b + ".concat", b, n);
}

Feature reductionB(GraphBuilder& gb, const Feature& x, const std::string& b, I n) {
    const Feature b3 = conv::unit(gb, x, 384, 3, 3, 2, b + ".b3x3", b, n);
    Feature bd = conv::unit(gb, x, 64, 1, 1, 1, b + ".bdbl_1", b, n);
    bd = conv::unit(gb, bd, 96, 3, 3, 1, b + ".bdbl_2", b, n);
    bd = conv::unit(gb, bd, 96, 3, 3, 2, b + ".bdbl_3", b, n);
    const Feature bp = conv::pool(gb, x, 2, b + ".pool", b, n);
    return concat(gb, {b3, bd, bp}, b + ".concat", b, n);
}

Feature moduleC(GraphBuilder& gb, const Feature& x, I mid, const std::string& b, I n) {
    const Feature b1 = conv::unit(gb, x, 192, 1, 1, 1, b + ".b1x1", b, n);
    Feature b7 = conv::unit(gb, x, mid, 1, 1, 1, b + ".b7_1", b, n);
    b7 = conv::unit(gb, b7, mid, 1, 7, 1, b + ".b7_2", b, n);
    b7 = conv::unit(gb, b7, 192, 7, 1, 1, b + ".b7_3", b, n);
    Feature bd = conv::unit(gb, x, mid, 1, 1, 1, b + ".b7dbl_1", b, n);
    bd = conv::unit(gb, bd, mid, 7, 1, 1, b + ".b7dbl_2", b, n);
    bd = conv::unit(gb, bd, mid, 1, 7, 1, b + ".b7dbl_3", b, n);
    bd = conv::unit(gb, bd, mid, 7, 1, 1, b + ".b7dbl_4", b, n);
    bd = conv::unit(gb, bd, 192, 1, 7, 1, b + ".b7dbl_5", b, n);
    const Feature bp = conv::unit(gb, conv::pool(gb, x, 1, b + ".pool", b, n), 192, 1, 1, 1, b + ".bpool", b, n);
    return concat(gb, {b1, b7, bd, bp}, b + ".concat", b, n);
}

Feature reductionD(GraphBuilder& gb, const Feature& x, const std::string& b, I n) {
    Feature b3 = conv::unit(gb, x, 192, 1, 1, 1, b + ".b3_1", b, n);
    b3 = conv::unit(gb, b3, 320, 3, 3, 2, b + ".b3_2", b, n);
    Feature b7 = conv::unit(gb, x, 192, 1, 1, 1, b + ".b7_1", b, n);
    b7 = conv::unit(gb, b7, 192, 1, 7, 1, b + ".b7_2", b, n);
    b7 = conv::unit(gb, b7, 192, 7, 1, 1, b + ".b7_3", b, n);
    b7 = conv::unit(gb, b7, 192, 3, 3, 2, b + ".b7_4", b, n);
    const Feature bp = conv::pool(gb, x, 2, b + ".pool", b, n);
    return concat(gb, {b3, b7, bp}, b + ".concat", b, n);
}

Feature moduleE(GraphBuilder& gb, const Feature& x, const std::string& b, I n) {
    const Feature b1 = conv::unit(gb, x, 320, 1, 1, 1, b + ".b1x1", b, n);
    const Feature b3 = conv::unit(gb, x, 384, 1, 1, 1, b + ".b3_1", b, n);
    const Feature b3a = conv::unit(gb, b3, 384, 1, 3, 1, b + ".b3_2a", b, n);
    const Feature b3b = conv::unit(gb, b3, 384, 3, 1, 1, b + ".b3_2b", b, n);
    Feature bd = conv::unit(gb, x, 448, 1, 1, 1, b + ".bdbl_1", b, n);
    bd = conv::unit(gb, bd, 384, 3, 3, 1, b + ".bdbl_2", b, n);
    const Feature bda = conv::unit(gb, bd, 384, 1, 3, 1, b + ".bdbl_3a", b, n);
    const Feature bdb = conv::unit(gb, bd, 384, 3, 1, 1, b + ".bdbl_3b", b, n);
    const Feature bp = conv::unit(gb, conv::pool(gb, x, 1, b + ".pool", b, n), 192, 1, 1, 1, b + ".bpool", b, n);
    return concat(gb, {b1, b3a, b3b, bda, bdb, bp}, b + ".concat", b, n);
}

} // namespace

Graph buildInception(const ModelParams& p, int microBatch, const std::string& name) {
    const I n = microBatch;
    GraphBuilder gb(name, p.dtype);
    auto [x, labels] = conv::imageInputs(gb, p.image, n);
    x = conv::unit(gb, x, 32, 3, 3, 2, "stem.1", "stem", n);
    x = conv::unit(gb, x, 32, 3, 3, 1, "stem.2", "stem", n);
    x = conv::unit(gb, x, 64, 3, 3, 1, "stem.3", "stem", n);
    x = conv::pool(gb, x, 2, "stem.pool1", "stem", n);
    x = conv::unit(gb, x, 80, 1, 1, 1, "stem.4", "stem", n);
    x = conv::unit(gb, x, 192, 3, 3, 1, "stem.5", "stem", n);
    x = conv::pool(gb, x, 2, "stem.pool2", "stem", n);
    x = moduleA(gb, x, 32, "mixed_5b", n);
    x = moduleA(gb, x, 64, "mixed_5c", n);
    x = moduleA(gb, x, 64, "mixed_5d", n);
    x = reductionB(gb, x, "mixed_6a", n);
    x = moduleC(gb, x, 128, "mixed_6b", n);
    x = moduleC(gb, x, 160, "mixed_6c", n);
    x = moduleC(gb, x, 160, "mixed_6d", n);
    x = moduleC(gb, x, 192, "mixed_6e", n);
    x = reductionD(gb, x, "mixed_7a", n);
    x = moduleE(gb, x, "mixed_7b", n);
    x = moduleE(gb, x, "mixed_7c", n);
    conv::classifier(gb, x, p.classes, labels, n);
    return gb.finish();
}

} // namespace shardscope
