// SPDX-License-Identifier: MIT
#pragma once

// JSON documents from files, refused past a nesting depth no Stallscope format comes near (include only where
// nlohmann_json is linked). nlohmann parses any depth without recursion, but copying, comparing or printing a value
// recurses once per level: a mapping file of 2,000,000 nested arrays overflowed the stack when its "ranks" were
// copied. The depth is checked in one pass before parsing.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace stallscope {

// A bundle manifest is 4 deep, an exercise sheet 5, a Prometheus answer 6: 64 leaves room for any JSON of these
// formats and stays far from a stack's limit (one frame per level, ~100 bytes each).
inline constexpr std::size_t kMaxJsonDepth = 64;

// The byte offset of the first '[' or '{' (outside strings) past `maxDepth` levels, or npos.
inline std::size_t jsonTooDeepAt(std::string_view text, std::size_t maxDepth = kMaxJsonDepth)
{
    std::size_t depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') {
                ++i; // the escaped character, a quote included
            } else if (c == '"') {
                inString = false;
            }
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth) {
                return i;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::string_view::npos;
}

// nlohmann's parse for text read from a file: too deep a document throws the parse_error a syntax error throws
// (byte offset and all), so every caller's error path names the file and where.
template <typename Json = nlohmann::json> Json parseJsonFile(std::string_view text)
{
    if (const auto at = jsonTooDeepAt(text); at != std::string_view::npos) {
        throw Json::parse_error::create(101, at + 1,
            "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels, which no Stallscope format is",
            nullptr);
    }
    return Json::parse(text);
}

} // namespace stallscope
