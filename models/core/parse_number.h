// SPDX-License-Identifier: MIT
#pragma once

// The one way readers turn text into numbers: std::from_chars over the whole text, range-checked for the target
// type. parseNumber says nothing went wrong by returning nullopt; toNumber throws BadNumber, which every line-
// oriented reader catches per line and turns into a warning naming the file and line (the rest still opens).
// Never std::stoi/stoul/atoi on file content: they throw out_of_range from deep inside a reader, or (atoi) are
// undefined on overflow.

#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace stallscope {

class BadNumber : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The whole of `text` (a leading '+' allowed; "0x" allowed when base is 16) as a T; nullopt when it is not a
// number or does not fit.
template <typename T> std::optional<T> parseNumber(std::string_view text, int base = 10)
{
    static_assert(std::is_integral_v<T>);
    if (!text.empty() && text.front() == '+') {
        text.remove_prefix(1);
    }
    if (base == 16 && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text.remove_prefix(2);
    }
    T value {};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return value;
}

std::optional<double> parseDouble(std::string_view text);

// As parseNumber, but throws BadNumber ("expected a number below 65536, got \"99999\"").
template <typename T> T toNumber(std::string_view text, int base = 10)
{
    if (auto v = parseNumber<T>(text, base)) {
        return *v;
    }
    const std::string shown = text.size() > 40 ? std::string(text.substr(0, 40)) + "…" : std::string(text);
    throw BadNumber("expected " + std::string(std::is_signed_v<T> ? "an integer" : "a non-negative integer")
        + " that fits " + std::to_string(sizeof(T) * 8) + " bits, got \"" + shown + "\"");
}
template <typename T> T toNumber(const std::string& text, int base = 10)
{
    return toNumber<T>(std::string_view(text), base);
}

} // namespace stallscope
