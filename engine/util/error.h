#pragma once
// Errors raised for bad input: a file, a field, an option. They carry one readable line.

#include <stdexcept>
#include <string>

namespace shardscope {

/// `message` as one bounded line: control characters escaped (\n, \t, \xNN) so that input echoed
/// into it cannot break the line, and at most 1,000 characters (then "...").
inline std::string oneLine(const std::string& message) {
    constexpr std::size_t kMax = 1000;
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (const char c : message) {
        if (out.size() >= kMax)
            return out + "...";
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\r')
            out += "\\r";
        else if (u < 0x20 || u == 0x7f)
            out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
        else
            out += c;
    }
    return out;
}

/// An input problem the user can fix (malformed file, unknown op kind, impossible mesh...).
/// `what()` is one line naming the place (file, field, op) and the problem.
class InputError : public std::runtime_error {
public:
    /// Builds the error from its message, made one bounded line (oneLine).
    explicit InputError(const std::string& message) : std::runtime_error(oneLine(message)) {}
};

} // namespace shardscope
