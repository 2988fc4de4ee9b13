#pragma once
// Python source text shared by the exporters that write Python modules (jax, dtensor).

#include <string>
#include <vector>

namespace shardscope {

/// `s` as a double-quoted Python string literal ("a\"b" for a"b).
inline std::string pyString(const std::string& s) {
    std::string out = "\"";
    for (char c : s)
        out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return out + "\"";
}

/// `items` as the inside of a Python tuple: "a, b" or, for one item, "a," (a tuple, not a parenthesis).
inline std::string pyTupleItems(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t k = 0; k < items.size(); ++k)
        out += (k ? ", " : "") + items[k];
    return items.size() == 1 ? out + "," : out;
}

} // namespace shardscope
