#pragma once
// Reading JSON objects field by field with errors that name the file and the field.

#include "engine/io/safe_write.h"
#include "engine/util/error.h"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>

namespace shardscope {

/// Reads fields of JSON objects from one source (a file name) and names it in every error.
class JsonFields {
public:
    /// `source` is the file name used in messages.
    explicit JsonFields(std::string source) : source_(std::move(source)) {}

    /// Parses `text`; throws InputError "FILE: malformed JSON at line L: ...".
    nlohmann::json parse(const std::string& text) const;
    /// Checks `format` and `version` (1 to `latest`) of a top-level object; returns the version.
    long long checkHeader(const nlohmann::json& doc, const std::string& format, long long latest = 1) const;
    /// Rejects any field of `obj` (at `path`) not in `allowed`, naming it.
    void checkKnown(const nlohmann::json& obj, const std::string& path, std::initializer_list<const char*> allowed) const;
    /// The object at `obj[key]`; throws when missing or not an object.
    const nlohmann::json& object(const nlohmann::json& obj, const std::string& path, const char* key) const;
    /// The array at `obj[key]`; throws when missing or not an array.
    const nlohmann::json& array(const nlohmann::json& obj, const std::string& path, const char* key) const;
    /// The string at `obj[key]`; throws when missing or not a string.
    std::string string(const nlohmann::json& obj, const std::string& path, const char* key) const;
    /// The number at `obj[key]`; throws when missing or not a number.
    double number(const nlohmann::json& obj, const std::string& path, const char* key) const;
    /// The number at `obj[key]`, which must lie in [`low`, `high`]; throws naming the range otherwise.
    double numberIn(const nlohmann::json& obj, const std::string& path, const char* key, double low,
                    double high) const;
    /// The integer at `obj[key]`; throws when missing or not an integer.
    long long integer(const nlohmann::json& obj, const std::string& path, const char* key) const;
    /// The boolean at `obj[key]`; throws when missing or not true/false.
    bool boolean(const nlohmann::json& obj, const std::string& path, const char* key) const;
    /// Throws InputError "FILE: field 'PATH': WHAT".
    [[noreturn]] void fail(const std::string& path, const std::string& what) const;
    /// The source name.
    const std::string& source() const { return source_; }

private:
    const nlohmann::json& field(const nlohmann::json& obj, const std::string& path, const char* key) const;
    std::string source_;
};

/// Runs `read`, turning a nlohmann::json exception it lets out (a value of the wrong type read without
/// a check) into InputError "SOURCE: what": bad input never reaches the CLI as an internal error.
template <typename Read>
auto guardJson(const std::string& source, Read&& read) -> decltype(read()) {
    try {
        return read();
    } catch (const nlohmann::json::exception& e) {
        std::string what = e.what();
        if (const std::size_t bracket = what.find("] "); bracket != std::string::npos)
            what = what.substr(bracket + 2);
        throw InputError(source + ": " + what.substr(0, 120));
    }
}

/// Reads a whole file; throws InputError "PATH: cannot read" when it cannot be opened.
std::string readTextFile(const std::string& path);

} // namespace shardscope
