#pragma once
// Shell-style name patterns for tensor and op names: `*` matches any run of characters, `?` one.

#include <string_view>

namespace shardscope {

/// True when `text` matches `pattern` as a whole ("layers.*.mlp.fc1.weight").
bool globMatch(std::string_view pattern, std::string_view text);

} // namespace shardscope
