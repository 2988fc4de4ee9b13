#pragma once
// Errors raised for bad input: a file, a field, an option. They carry one readable line.

#include <stdexcept>
#include <string>

namespace shardscope {

/// An input problem the user can fix (malformed file, unknown op kind, impossible mesh...).
/// `what()` is one line naming the place (file, field, op) and the problem.
class InputError : public std::runtime_error {
public:
    /// Builds the error from its one-line message.
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

} // namespace shardscope
