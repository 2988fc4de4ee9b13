// A deterministic mutation fuzzer over every file reader: each sample file is mutated
// (bytes flipped, inserted, deleted; spans truncated or duplicated; numbers replaced by extremes)
// with fixed seeds, and every mutant must either load or throw InputError naming the file — no
// other exception, no crash (ctest reports a crash as a failure). A bounded run: 3,000 mutants per
// JSON reader and 300 ONNX mutants, about a second.

#include <QTest>
// Qt first: moc cannot parse <concepts> unless Qt headers came before.

#include "engine/builders/builders.h"
#include "engine/io/cluster_file.h"
#include "engine/io/hf_config.h"
#include "engine/io/json_fields.h"
#include "engine/io/measurements_file.h"
#include "engine/io/model_file.h"
#include "engine/io/plan_file.h"
#include "engine/io/tactic_file.h"
#include "engine/onnx/onnx_import.h"
#include "engine/util/error.h"

#include <QTemporaryDir>

#include <functional>
#include <random>

using namespace shardscope;

namespace {

const std::string kRoot = SHARDSCOPE_SOURCE_DIR "/";

/// One mutant of `text` from `rng`.
std::string mutate(const std::string& text, std::mt19937_64& rng) {
    std::string s = text;
    auto at = [&](std::size_t n) { return n == 0 ? 0 : std::size_t(rng() % n); };
    static const char* extremes[] = {"1e999", "-1", "0", "4294967304", "99999999999999999999", "\"\"", "null",
                                     "[]", "{}", "true", "-0.0", "1e-999", "\"\\u0000\""};
    const int edits = 1 + int(rng() % 2);
    for (int e = 0; e < edits && !s.empty(); ++e) {
        switch (rng() % 6) {
        case 0: // flip a byte
            s[at(s.size())] = char(rng() % 256);
            break;
        case 1: // delete a span
            s.erase(at(s.size()), 1 + at(16));
            break;
        case 2: // insert a byte
            s.insert(at(s.size()), 1, "{}[],:\"0123456789-eE."[rng() % 21]);
            break;
        case 3: // truncate
            s.resize(at(s.size()));
            break;
        case 4: { // duplicate a span
            const std::size_t from = at(s.size()), len = 1 + at(64);
            s.insert(at(s.size()), s.substr(from, len));
            break;
        }
        default: { // replace a number by an extreme value
            std::size_t p = at(s.size());
            while (p < s.size() && !std::isdigit(static_cast<unsigned char>(s[p])))
                ++p;
            std::size_t q = p;
            while (q < s.size() && (std::isdigit(static_cast<unsigned char>(s[q])) || s[q] == '.' || s[q] == 'e'))
                ++q;
            if (p < s.size())
                s.replace(p, q - p, extremes[rng() % (sizeof extremes / sizeof *extremes)]);
        }
        }
    }
    return s;
}

struct Outcome {
    int loaded = 0, refused = 0;
};

/// Feeds `mutants` mutants of `file` to `read`; fails on anything but success or InputError.
Outcome fuzz(const std::string& file, int mutants, std::uint64_t seed, const std::function<void(const std::string&)>& read) {
    const std::string text = readTextFile(kRoot + file);
    std::mt19937_64 rng(seed);
    Outcome o;
    for (int i = 0; i < mutants; ++i) {
        const std::string m = mutate(text, rng);
        try {
            read(m);
            ++o.loaded;
        } catch (const InputError&) {
            ++o.refused;
        } catch (const std::exception& e) {
            qWarning("%s mutant %d (seed %llu): %s", file.c_str(), i, static_cast<unsigned long long>(seed), e.what());
            QTest::qFail("a mutant escaped as a non-input error", __FILE__, __LINE__);
            return o;
        }
    }
    return o;
}

} // namespace

class TestFuzzLoaders : public QObject {
    Q_OBJECT
private slots:
    void everyReaderLoadsOrRefusesEveryMutant_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reader");
        QTest::newRow("model") << "samples/models/two-layer-mlp.model.json" << "model";
        QTest::newRow("cluster") << "samples/clusters/dgx-h100.cluster.json" << "cluster";
        QTest::newRow("cluster nvl72") << "samples/clusters/gb200-nvl72.cluster.json" << "cluster";
        QTest::newRow("plan") << "samples/plans/gpt2-small-megatron.plan.json" << "plan";
        QTest::newRow("tactics") << "samples/tactics/mixtral-ep.tactics.json" << "tactics";
        QTest::newRow("measurements") << "samples/measurements/megatron-a100.measurements.json" << "measurements";
        QTest::newRow("hf config llama") << "samples/models/hf-llama/config.json" << "hf";
        QTest::newRow("hf config deepseek-v3") << "samples/models/hf-deepseek-v3/config.json" << "hf";
        QTest::newRow("hf config gemma 3") << "samples/models/hf-gemma-3-1b/config.json" << "hf";
        QTest::newRow("hf config gpt oss") << "samples/models/hf-gpt-oss-120b/config.json" << "hf";
    }
    void everyReaderLoadsOrRefusesEveryMutant() {
        QFETCH(QString, file);
        QFETCH(QString, reader);
        const std::string r = reader.toStdString(), source = "mutant.json";
        const Graph gpt2 = buildModel("gpt", modelPreset("gpt2-small").params, 1, "gpt2-small");
        std::function<void(const std::string&)> read;
        if (r == "model")
            read = [&](const std::string& t) { parseModelJson(t, source); };
        else if (r == "cluster")
            read = [&](const std::string& t) {
                // A cluster that loads must also take --nodes (deal its NVLink domains) or refuse it.
                const Cluster c = parseClusterJson(t, source);
                for (const int nodes : {1, 7, 36, 64})
                    withNodes(c, nodes);
            };
        else if (r == "plan")
            read = [&](const std::string& t) { parsePlanJson(t, source, gpt2); };
        else if (r == "tactics")
            read = [&](const std::string& t) { parseTacticsJson(t, source); };
        else if (r == "measurements")
            read = [&](const std::string& t) { parseMeasurementsJson(t, source, "dgx-a100"); };
        else // a Hugging Face config goes on to build its graph (one layer, to keep mutants quick)
            read = [&](const std::string& t) {
                const HfModel m = parseHfConfig(JsonFields(source).parse(t), source);
                ModelParams p = m.params;
                p.layers = std::min(p.layers, 2);
                p.arch.denseLayers = std::min(p.arch.denseLayers, 1);
                p.seq = std::min(p.seq, 64);
                buildModel(m.family, p, 1, m.name);
            };
        const Outcome o = fuzz(file.toStdString(), 3000, 20261206, read);
        qInfo("%s: %d loaded, %d refused", qPrintable(file), o.loaded, o.refused);
        QVERIFY(o.loaded + o.refused == 3000);
    }

    void onnxMutantsImportOrAreRefused() {
        // Byte-level mutants of an exported encoder: protobuf and graph damage alike.
        const std::string text = readTextFile(kRoot + "tests/onnx/fixtures/encoder2.onnx");
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("mutant.onnx")).toStdString();
        std::mt19937_64 rng(20261206);
        int loaded = 0, refused = 0;
        for (int i = 0; i < 300; ++i) {
            writeFileAtomically(path, mutate(text, rng));
            try {
                importOnnx(path, {"batch=2", "seq=8"}, std::nullopt, 1);
                ++loaded;
            } catch (const InputError&) {
                ++refused;
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QStringLiteral("ONNX mutant %1 escaped: %2").arg(i).arg(QString::fromUtf8(e.what()))));
            }
        }
        qInfo("encoder2.onnx: %d imported, %d refused", loaded, refused);
    }
};

QTEST_GUILESS_MAIN(TestFuzzLoaders)
#include "tst_fuzz_loaders.moc"
