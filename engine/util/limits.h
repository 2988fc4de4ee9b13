#pragma once
// Named limits on the sizes inputs may ask for: generous for real work (16,384-GPU clusters and
// beyond), small enough that every count and product fits in an int and nothing divides by a
// wrapped zero. Every input that sets one of these sizes is checked against its limit, and the
// refusal names the field and the limit.

#include <cstdint>
#include <string>

namespace shardscope {

/// Devices in a cluster or a mesh: 2^20 (1,048,576).
constexpr std::int64_t kMaxDevices = std::int64_t(1) << 20;

/// Link levels of a cluster (node, rack or NVLink domain, cluster, ...): per-level figures live in
/// fixed arrays (LevelValues) on the cost model's hot paths.
constexpr std::int64_t kMaxLinkLevels = 8;

/// Transformer layers a builder or Hugging Face config may ask for (Llama 3 405B has 126).
constexpr std::int64_t kMaxLayers = 10000;

/// Ops of a model file or ONNX import: room for 100k-op graphs twice over.
constexpr std::int64_t kMaxOps = 200000;

/// Bytes of a JSON input file (a 100k-op model file is tens of MB).
constexpr std::int64_t kMaxJsonFileBytes = std::int64_t(512) << 20;

/// Events a trace or event list may hold (a class's events count once per shown device): about a
/// gigabyte of JSON.
constexpr std::int64_t kMaxTraceEvents = 5000000;

/// "1,048,576": `n` with thousands separators, for limit messages.
inline std::string withSeparators(std::int64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace shardscope
