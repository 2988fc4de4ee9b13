#pragma once
// Compact text fixtures for graphs: a few lines a test can hold inline or in tests/fixtures/graphs,
// turned into the model format (docs/DESIGN.md, Files) and read by the same parser as a
// *.model.json, so a fixture is checked exactly as a user's file is.
//
//   model two-layer-mlp
//   tensor x 64x1024 input                # name, shape, role (input, parameter, activation), dtype (bf16)
//   tensor loss 64 activation fp32
//   op fc1 matmul x fc1.weight -> h | ([b,h],[h,f])->([b,f]) | batch=b tensor=f block=mlp
//
// An op line: name, kind, inputs -> outputs, then the sharding rule and optional key=value fields
// (block; the hints batch, tensor, sequence, expert) after '|'. '#' starts a comment.

#include "engine/io/model_file.h"
#include "engine/util/error.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace shardscope::testing {

namespace detail {

/// The words of `text` split at whitespace.
inline std::vector<std::string> words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

/// The text between the pipes, trimmed: "a | b | c" -> {"a", "b", "c"}.
inline std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::string::size_type start = 0;
    for (;;) {
        const auto bar = line.find('|', start);
        std::string part = line.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
        part.erase(0, part.find_first_not_of(' '));
        part.erase(part.find_last_not_of(' ') + 1);
        out.push_back(part);
        if (bar == std::string::npos)
            return out;
        start = bar + 1;
    }
}

} // namespace detail

/// The model document of the fixture `text`; throws InputError naming the line it cannot read.
inline nlohmann::json graphTextDocument(const std::string& text, const std::string& source) {
    nlohmann::json doc{{"format", "shardscope-model"}, {"version", 1}, {"name", source},
                       {"tensors", nlohmann::json::array()}, {"ops", nlohmann::json::array()}};
    std::istringstream in(text);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        line = line.substr(0, line.find('#'));
        const std::vector<std::string> parts = detail::fields(line);
        const std::vector<std::string> w = detail::words(parts[0]);
        const std::string where = source + ":" + std::to_string(number);
        if (w.empty())
            continue;
        if (w[0] == "model" && w.size() == 2) {
            doc["name"] = w[1];
        } else if (w[0] == "tensor" && (w.size() == 4 || w.size() == 5)) {
            nlohmann::json shape = nlohmann::json::array();
            std::istringstream dims(w[2]);
            for (std::string d; std::getline(dims, d, 'x');)
                shape.push_back(std::stoll(d));
            doc["tensors"].push_back({{"name", w[1]}, {"shape", shape}, {"role", w[3]}, {"dtype", w.size() == 5 ? w[4] : "bf16"}});
        } else if (w[0] == "op" && w.size() >= 5 && parts.size() >= 2) {
            nlohmann::json op{{"name", w[1]}, {"kind", w[2]}, {"inputs", nlohmann::json::array()},
                              {"outputs", nlohmann::json::array()}, {"rule", parts[1]}};
            bool outputs = false;
            for (std::size_t k = 3; k < w.size(); ++k) {
                if (w[k] == "->")
                    outputs = true;
                else
                    op[outputs ? "outputs" : "inputs"].push_back(w[k]);
            }
            for (const std::string& kv : parts.size() >= 3 ? detail::words(parts[2]) : std::vector<std::string>{}) {
                const auto eq = kv.find('=');
                if (eq == std::string::npos)
                    throw InputError(where + ": '" + kv + "' is not key=value");
                const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
                if (key == "block")
                    op["block"] = value;
                else
                    op["hints"][key] = value;
            }
            doc["ops"].push_back(op);
        } else {
            throw InputError(where + ": cannot read '" + line + "'");
        }
    }
    return doc;
}

/// The graph of the fixture `text`, read as a model file is.
inline Graph graphFromText(const std::string& text, const std::string& source = "fixture") {
    return parseModelDocument(graphTextDocument(text, source), source);
}

/// The fixture tests/fixtures/graphs/<name>.graph.txt as a model file's JSON text.
inline std::string graphFixtureJson(const std::string& name) {
    std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR "/tests/fixtures/graphs/") + name + ".graph.txt");
    if (!in.is_open())
        throw InputError("no graph fixture '" + name + "'");
    std::stringstream text;
    text << in.rdbuf();
    return graphTextDocument(text.str(), name).dump(1);
}

/// The graph of the fixture tests/fixtures/graphs/<name>.graph.txt.
inline Graph graphFixture(const std::string& name) {
    return parseModelDocument(nlohmann::json::parse(graphFixtureJson(name)), name + ".graph.txt");
}

} // namespace shardscope::testing
