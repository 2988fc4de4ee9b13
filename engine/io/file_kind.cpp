#include "engine/io/file_kind.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace shardscope {

namespace {

/// Reads a JSON document only as far as its top-level "format" or "model_type" field, then stops, so
/// telling a file's kind does not read the whole file ahead of the loader.
class KindFinder final : public nlohmann::json_sax<nlohmann::json> {
public:
    FileKind kind = FileKind::Unknown;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool string(string_t& text) override {
        if (depth_ == 1 && key_ == "model_type") {
            kind = FileKind::Model;
            return false;
        }
        if (depth_ == 1 && key_ == "format") {
            kind = text == "shardscope-model"     ? FileKind::Model
                   : text == "shardscope-cluster" ? FileKind::Cluster
                   : text == "shardscope-plan"    ? FileKind::Plan
                   : text == "shardscope-tactics" ? FileKind::Tactics
                                                  : FileKind::Unknown;
            return false;
        }
        return value();
    }
    bool start_object(std::size_t) override { return open(true); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_array() override { return close(); }
    bool key(string_t& name) override {
        if (depth_ == 1)
            key_ = name;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        kind = FileKind::Unknown;
        return false;
    }

private:
    bool value() {
        if (depth_ == 1 && key_ == "model_type") { // a Hugging Face config whatever the value's type
            kind = FileKind::Model;
            return false;
        }
        return depth_ > 0; // a document that is a bare value is no file of ours
    }
    bool open(bool object) {
        if (depth_ == 0 && !object)
            return false; // a top-level array
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        return depth_ > 0; // the top-level object ended without a kind
    }

    int depth_ = 0;
    std::string key_;
};

} // namespace

FileKind sniffFileKind(const std::string& path) {
    if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0)
        return FileKind::Model;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return FileKind::Unknown;
    KindFinder finder;
    nlohmann::json::sax_parse(in, &finder);
    return finder.kind;
}

} // namespace shardscope
